import { Body, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { SandboxController, SandboxHttpError } from './sandbox-http';
import { SandboxOAuth } from './sandbox-oauth';

interface TokenBody {
  accessToken?: string;
  refreshToken?: string;
}

const SAMPLE_MEDIA: Record<string, { type: string; body: Buffer }> = {
  'image.png': {
    type: 'image/png',
    body: Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    ),
  },
  'image.jpg': {
    type: 'image/jpeg',
    body: Buffer.from(
      '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AVN//2Q==',
      'base64',
    ),
  },
  // Just the ftyp box: enough for a simulator that checks the download and content type.
  'video.mp4': { type: 'video/mp4', body: Buffer.from('AAAAGGZ0eXBtcDQyAAAAAG1wNDJpc29t', 'base64') },
};

/** Network-independent sandbox routes: the consent form's target and test controls. */
@SandboxController('_control')
export class SandboxControlController {
  constructor(private readonly oauth: SandboxOAuth) {}

  @Post('consent')
  consent(@Body() body: { consent?: string; decision?: string }, @Res() res: Response): Promise<void> {
    return this.oauth.consent(body, res);
  }

  /** Sample media the simulators can download: image.png (1×1 PNG), image.jpg, video.mp4; anything else 404. */
  @Get('media/:name')
  media(@Param('name') name: string, @Res() res: Response): void {
    const file = SAMPLE_MEDIA[name];
    if (!file) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    res.status(200).type(file.type).send(file.body);
  }

  /** Revokes the grant behind a token: its refreshes and all its tokens fail from now on. */
  @Post('revoke')
  @HttpCode(200)
  async revoke(@Body() body: TokenBody): Promise<{ revoked: true }> {
    const token = body.refreshToken ?? body.accessToken;
    if (!token || !(await this.oauth.revoke(token))) throw new SandboxHttpError(404, { error: 'unknown_token' });
    return { revoked: true };
  }

  /** Makes an access token expire now (the next call with it fails as expired). */
  @Post('expire')
  @HttpCode(200)
  async expire(@Body() body: TokenBody): Promise<{ expired: true }> {
    if (!body.accessToken || !(await this.oauth.expire(body.accessToken)))
      throw new SandboxHttpError(404, { error: 'unknown_token' });
    return { expired: true };
  }
}
