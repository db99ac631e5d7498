import type { Response } from 'express';

/** Paths of the pages people open (connect and upload links), as opposed to the API under /v1. */
const HOSTED = /^\/(connect|media\/upload-sessions)(\/|$)/;

/** True for a GET of a hosted page's path that matched no route (a mangled link). */
export function isHostedPageMiss(method: string, originalUrl: string, status: number): boolean {
  const path = originalUrl.split('?')[0];
  return status === 404 && (method === 'GET' || method === 'HEAD') && HOSTED.test(path);
}

/** The hosted pages' "Link not valid" page (same headers as the pages themselves). */
export function sendHostedNotFound(res: Response): void {
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  );
  res.status(404).type('html').send(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Link not valid</title>
<style>body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1a1a1a; }</style>
</head>
<body>
<main>
<h1>Link not valid</h1>
<p>This link is incomplete or was changed on the way. Open the link you were sent again, exactly as it is, or ask the sender for a new one.</p>
</main>
</body>
</html>`);
}
