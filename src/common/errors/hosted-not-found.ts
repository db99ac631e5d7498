import type { Response } from 'express';
import { HOSTED_HEADERS, hostedCsp, messageHtml } from '../hosted-pages/hosted-page';

/** Paths of the pages people open (connect and upload links), as opposed to the API under /v1. */
const HOSTED = /^\/(connect|media\/upload-sessions|branding)(\/|$)/;

/** True for a GET of a hosted page's path that matched no route (a mangled link). */
export function isHostedPageMiss(method: string, originalUrl: string, status: number): boolean {
  const path = originalUrl.split('?')[0];
  return status === 404 && (method === 'GET' || method === 'HEAD') && HOSTED.test(path);
}

/** The hosted pages' "Link not valid" page (same headers as the pages themselves). */
export function sendHostedNotFound(res: Response): void {
  for (const [k, v] of Object.entries(HOSTED_HEADERS)) res.setHeader(k, v);
  res.setHeader('Content-Security-Policy', hostedCsp());
  res
    .status(404)
    .type('html')
    .send(
      messageHtml(
        'Link not valid',
        'This link is incomplete or was changed on the way. Open the link you were sent again, exactly as it is, or ask the sender for a new one.',
      ),
    );
}
