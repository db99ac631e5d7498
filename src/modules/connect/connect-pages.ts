import type { Response } from 'express';
import type { PlatformName } from '@/modules/networks/platform-name';

/**
 * The hosted connect pages: plain, server-rendered, accessible HTML (no scripts). Every value
 * that reaches a page goes through `esc`.
 */

export type HostedOutcome = (
  { kind: 'redirect'; url: string; status: 302 | 303 } | { kind: 'page'; status: number; html: string }
) & { /** Set-Cookie lines to send with the answer. */ cookies?: string[] };

const PLATFORM_LABELS: Record<PlatformName, string> = {
  facebook: 'Facebook',
  instagram: 'Instagram',
  linkedin: 'LinkedIn',
  tiktok: 'TikTok',
  youtube: 'YouTube',
  threads: 'Threads',
};

const HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // The page URL carries the session's token: never hand it to the next site.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export function platformLabel(platform: PlatformName): string {
  return PLATFORM_LABELS[platform];
}

export async function reply(res: Response, outcome: Promise<HostedOutcome>): Promise<void> {
  const o = await outcome;
  for (const [k, v] of Object.entries(HEADERS)) res.setHeader(k, v);
  if (o.cookies?.length) res.setHeader('Set-Cookie', o.cookies);
  if (o.kind === 'redirect') {
    res.redirect(o.status, o.url);
    return;
  }
  res.status(o.status).type('html').send(o.html);
}

export function redirect(url: string, status: 302 | 303 = 302): HostedOutcome {
  return { kind: 'redirect', url, status };
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1a1a1a; }
fieldset { border: 1px solid #999; border-radius: 6px; padding: 1rem; }
label { display: block; padding: .4rem 0; }
button { font: inherit; padding: .5rem 1rem; margin: 1rem .5rem 0 0; }
.error { color: #a00000; font-weight: bold; }
.muted { color: #555; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export function messagePage(status: number, title: string, message: string): HostedOutcome {
  return { kind: 'page', status, html: layout(title, `<h1>${esc(title)}</h1>\n<p>${esc(message)}</p>`) };
}

export interface SelectionChoice {
  platformAccountId: string;
  name: string;
  username?: string | null;
}

export function selectionPage(p: {
  action: string;
  token: string;
  platform: PlatformName;
  choices: SelectionChoice[];
  error?: string;
}): HostedOutcome {
  const label = platformLabel(p.platform);
  const items = p.choices
    .map((c, i) => {
      const detail = c.username ? ` <span class="muted">(@${esc(c.username)})</span>` : '';
      return `<label for="acct-${i}"><input type="checkbox" id="acct-${i}" name="accounts" value="${esc(c.platformAccountId)}"> ${esc(c.name)}${detail}</label>`;
    })
    .join('\n');
  const error = p.error ? `<p class="error" role="alert">${esc(p.error)}</p>\n` : '';
  const body = `<h1>Choose what to connect</h1>
<p>Your ${esc(label)} sign-in gives access to ${p.choices.length} accounts. Choose the ones to connect.</p>
${error}<form method="post" action="${esc(p.action)}">
<input type="hidden" name="token" value="${esc(p.token)}">
<fieldset>
<legend>${esc(label)} accounts</legend>
${items}
</fieldset>
<button type="submit" name="action" value="connect">Connect selected</button>
<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form>`;
  return { kind: 'page', status: p.error ? 400 : 200, html: layout(`Choose ${label} accounts`, body) };
}

export function resultPage(p: {
  platform: PlatformName;
  status: string;
  accounts: { name: string }[];
  error: { message: string } | null;
}): HostedOutcome {
  const label = platformLabel(p.platform);
  switch (p.status) {
    case 'completed': {
      const list = p.accounts.map((a) => `<li>${esc(a.name)}</li>`).join('\n');
      return {
        kind: 'page',
        status: 200,
        html: layout(
          `${label} connected`,
          `<h1>${esc(label)} connected</h1>\n<ul>\n${list}\n</ul>\n<p>You can close this window.</p>`,
        ),
      };
    }
    case 'failed':
      return messagePage(200, `${label} not connected`, p.error?.message ?? 'The connection did not complete.');
    case 'expired':
      return messagePage(410, 'This link has expired', 'Connect links are valid for one hour. Ask for a new one.');
    default:
      return messagePage(200, 'Connection not finished', `The ${label} connection has not been completed yet.`);
  }
}
