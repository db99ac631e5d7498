import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/common/auth/decorators';
import {
  SessionPageCompleteDto,
  SessionPageFileDto,
  SessionPageFileResultDto,
  SessionPageRemoveDto,
  SessionPageTokenDto,
} from './dto/media.dto';
import { sendPage } from './upload-session-page';
import { UploadSessionsService } from './upload-sessions.service';

/** The hosted upload page behind a session's `url` and the two calls its script makes (token, not key). */
@ApiExcludeController()
@Controller('media/upload-sessions')
export class UploadSessionPagesController {
  constructor(private readonly sessions: UploadSessionsService) {}

  @Get(':id')
  @Public()
  async page(@Param('id') id: string, @Query('token') token: unknown, @Res() res: Response): Promise<void> {
    return sendPage(res, await this.sessions.page(id, token));
  }

  @Post(':id/files')
  @Public()
  @HttpCode(200)
  file(@Param('id') id: string, @Body() dto: SessionPageFileDto): Promise<SessionPageFileResultDto> {
    return this.sessions.issueFile(id, dto);
  }

  @Post(':id/files/remove')
  @Public()
  @HttpCode(200)
  remove(@Param('id') id: string, @Body() dto: SessionPageRemoveDto): Promise<{ removed: boolean }> {
    return this.sessions.removeFile(id, dto);
  }

  @Post(':id/complete')
  @Public()
  @HttpCode(200)
  complete(@Param('id') id: string, @Body() dto: SessionPageTokenDto): Promise<SessionPageCompleteDto> {
    return this.sessions.complete(id, dto);
  }
}
