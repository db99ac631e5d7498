import { SandboxHttpError } from './sandbox-http';
import { SandboxOAuth } from './sandbox-oauth';
import { route, SimulatorRoutes } from './sandbox-routes';

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

const unknownToken = () => new SandboxHttpError(404, { error: 'unknown_token' });

/** Network-independent sandbox routes (/sandbox/_control): the consent form's target and test controls. */
export const SandboxControlController = SimulatorRoutes('SandboxControlController', '_control', SandboxOAuth, [
  route({ at: 'POST consent', raw: true }, null, ({ body, res }, oauth) => oauth.consent(body, res)),
  /** Sample media the simulators can download: image.png (1×1 PNG), image.jpg, video.mp4; anything else 404. */
  route({ at: 'GET media/:name', raw: true }, null, ({ params, res }) => {
    const file = Object.hasOwn(SAMPLE_MEDIA, params.name) ? SAMPLE_MEDIA[params.name] : undefined;
    if (!file) res.status(404).type('text/plain').send('Not found');
    else res.status(200).type(file.type).send(file.body);
  }),
  /** Revokes the grant behind a token: its refreshes and all its tokens fail from now on. */
  route('POST revoke', null, async ({ body }, oauth) => {
    if (!(await oauth.revoke(body.refreshToken ?? body.accessToken))) throw unknownToken();
    return { revoked: true };
  }),
  /** Makes an access token expire now (the next call with it fails as expired). */
  route('POST expire', null, async ({ body }, oauth) => {
    if (!(await oauth.expire(body.accessToken))) throw unknownToken();
    return { expired: true };
  }),
]);
