import { Body, Controller, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/common/auth/decorators';
import { ConnectFlowService } from './connect-flow.service';
import { reply } from './connect-pages';

type Input = Record<string, unknown>;

/** The hosted pages behind a connect session's `url`; reached by a person's browser, not with a key. */
@Controller('connect')
export class ConnectPagesController {
  constructor(private readonly flow: ConnectFlowService) {}

  @Get('callback/:platform')
  @Public()
  @ApiExcludeEndpoint()
  callback(
    @Param('platform') platform: string,
    @Query() query: Input,
    @Headers('cookie') cookie: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    return reply(res, this.flow.callback(platform, query, cookie));
  }

  @Get(':id')
  @Public()
  @ApiExcludeEndpoint()
  start(
    @Param('id') id: string,
    @Query() query: Input,
    @Headers('cookie') cookie: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    return reply(res, this.flow.start(id, query, cookie));
  }

  @Get(':id/select')
  @Public()
  @ApiExcludeEndpoint()
  selection(@Param('id') id: string, @Query() query: Input, @Res() res: Response): Promise<void> {
    return reply(res, this.flow.selection(id, query));
  }

  @Post(':id/select')
  @Public()
  @ApiExcludeEndpoint()
  select(@Param('id') id: string, @Body() body: Input, @Res() res: Response): Promise<void> {
    return reply(res, this.flow.select(id, body));
  }

  @Get(':id/done')
  @Public()
  @ApiExcludeEndpoint()
  done(@Param('id') id: string, @Query() query: Input, @Res() res: Response): Promise<void> {
    return reply(res, this.flow.done(id, query));
  }
}
