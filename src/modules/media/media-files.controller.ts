import { Controller, Get, Param, Put, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '@/common/auth/decorators';
import { SignedUploadQueryDto, UploadedFileDto } from './dto/media.dto';
import { MediaService } from './media.service';

/** Path prefix of the signed PUT: left alone by every body parser (create-app.ts); the service reads the stream. */
export const UPLOAD_PATH = '/media/upload/';

export function isUploadPut(req: { method?: string; originalUrl?: string; url?: string }): boolean {
  return req.method === 'PUT' && (req.originalUrl ?? req.url ?? '').startsWith(UPLOAD_PATH);
}

/**
 * A refused upload's body is never read into memory: once the answer is out, Node discards what
 * the client still sends (so it reads the answer), for at most DISCARD_MS; then the socket closes.
 */
const DISCARD_MS = 10_000;
function discardAfterAnswer(req: Request, res: Response): void {
  res.once('finish', () => {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket.destroy(), DISCARD_MS);
    timer.unref();
    req.once('end', () => clearTimeout(timer));
    req.once('close', () => clearTimeout(timer));
  });
}

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
  async upload(
    @Param('dir') dir: string,
    @Param('file') file: string,
    @Query() query: SignedUploadQueryDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UploadedFileDto> {
    try {
      return await this.media.receive(`${dir}/${file}`, query, req);
    } catch (err) {
      if (!req.complete) discardAfterAnswer(req, res);
      throw err;
    }
  }

  @Get('files/:dir/:file')
  @Public()
  file(@Param('dir') dir: string, @Param('file') file: string, @Res() res: Response): Promise<void> {
    return this.media.serve(`${dir}/${file}`, res);
  }
}
