import { Body, Controller, Get, Headers, Param, Put, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/common/auth/decorators';
import { SignedUploadQueryDto, UploadedFileDto } from './dto/media.dto';
import { MediaService } from './media.service';

/**
 * The local driver's URLs: the signed PUT (`uploadUrl`) and the public file (`publicUrl`).
 * Opaque to clients (they use the URLs they are given), so left out of the OpenAPI document.
 */
@ApiExcludeController()
@Controller('media')
export class MediaFilesController {
  constructor(private readonly media: MediaService) {}

  @Put('upload/:dir/:file')
  @Public()
  upload(
    @Param('dir') dir: string,
    @Param('file') file: string,
    @Query() query: SignedUploadQueryDto,
    @Headers('content-type') contentType: string | undefined,
    @Body() body: Buffer,
  ): Promise<UploadedFileDto> {
    return this.media.receive(`${dir}/${file}`, query, contentType, body);
  }

  @Get('files/:dir/:file')
  @Public()
  file(@Param('dir') dir: string, @Param('file') file: string, @Res() res: Response): Promise<void> {
    return this.media.serve(`${dir}/${file}`, res);
  }
}
