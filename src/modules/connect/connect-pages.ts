import type { Response } from 'express';
import type { PlatformName } from '@/modules/networks/platform-name';
import { esc } from '@/common/http/escape-html';

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
  /** LinkedIn: `organization` for a company page; anything else is the person's own profile. */
  kind?: string;
}

/** What the accounts of a network are called for people: Facebook Pages, LinkedIn profile and company pages. */
function accountWords(platform: PlatformName): { plural: string } {
  if (platform === 'facebook') return { plural: 'Facebook Pages' };
  if (platform === 'linkedin') return { plural: 'LinkedIn profile and company pages' };
  return { plural: `${platformLabel(platform)} accounts` };
}

export function selectionPage(p: {
  action: string;
  token: string;
  platform: PlatformName;
  choices: SelectionChoice[];
  error?: string;
}): HostedOutcome {
  const label = platformLabel(p.platform);
  const checkbox = (c: SelectionChoice, i: number) => {
    const detail = c.username ? ` <span class="muted">(@${esc(c.username)})</span>` : '';
    return `<label for="acct-${i}"><input type="checkbox" id="acct-${i}" name="accounts" value="${esc(c.platformAccountId)}"> ${esc(c.name)}${detail}</label>`;
  };
  const words = accountWords(p.platform);
  const indexed = p.choices.map((c, i) => ({ c, i }));
  const group = (legend: string, list: typeof indexed) =>
    list.length
      ? `<fieldset>\n<legend>${esc(legend)}</legend>\n${list.map((x) => checkbox(x.c, x.i)).join('\n')}\n</fieldset>`
      : '';
  const items =
    p.platform === 'linkedin'
      ? [
          group(
            'Your personal profile',
            indexed.filter((x) => x.c.kind !== 'organization'),
          ),
          group(
            'Company pages',
            indexed.filter((x) => x.c.kind === 'organization'),
          ),
        ]
          .filter(Boolean)
          .join('\n')
      : group(words.plural, indexed);
  const error = p.error ? `<p class="error" role="alert">${esc(p.error)}</p>\n` : '';
  const body = `<h1>Choose what to connect</h1>
<p>Your ${esc(label)} sign-in gives access to ${p.choices.length} ${esc(words.plural.replace(`${label} `, ''))}. Choose the ones to connect.</p>
${error}<form method="post" action="${esc(p.action)}">
<input type="hidden" name="token" value="${esc(p.token)}">
${items}
<button type="submit" name="action" value="connect">Connect selected</button>
<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form>`;
  return { kind: 'page', status: p.error ? 400 : 200, html: layout(`Choose ${words.plural}`, body) };
}

export function resultPage(p: {
  platform: PlatformName;
  status: string;
  accounts: { name: string }[];
  error: { code?: string; message: string } | null;
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
    case 'failed': {
      const again = 'If you want to try again, open the connect link you were given once more.';
      const why =
        p.error?.code === 'access_denied' || p.error?.code === 'cancelled'
          ? `You chose not to connect ${label}, so nothing was connected.`
          : `${label} could not be connected: ${p.error?.message ?? 'the sign-in did not finish.'}`;
      return messagePage(200, `${label} not connected`, `${why} ${again}`);
    }
    case 'expired':
      return messagePage(410, 'This link has expired', 'Connect links are valid for one hour. Ask for a new one.');
    default:
      return messagePage(
        200,
        'Connection not finished',
        `Your ${label} connection is not finished yet. Go back to the window where you signed in to ${label}, or open the connect link you were given again to continue.`,
      );
  }
}
