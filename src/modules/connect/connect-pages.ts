import type { Response } from 'express';
import { Brand, esc, HOSTED_HEADERS, hostedCsp, layout, messageHtml } from '@/common/hosted-pages/hosted-page';
import type { PlatformName } from '@/modules/networks/platform-name';

export { esc };

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

export function platformLabel(platform: PlatformName): string {
  return PLATFORM_LABELS[platform];
}

export async function reply(res: Response, outcome: Promise<HostedOutcome>): Promise<void> {
  const o = await outcome;
  for (const [k, v] of Object.entries(HOSTED_HEADERS)) res.setHeader(k, v);
  res.setHeader('Content-Security-Policy', hostedCsp());
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

export function messagePage(status: number, title: string, message: string, brand?: Brand | null): HostedOutcome {
  return { kind: 'page', status, html: messageHtml(title, message, brand) };
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
  brand?: Brand | null;
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
  const ask = p.brand ? `<p class="ask">${esc(p.brand.name)} wants to publish to your ${esc(words.plural)}.</p>\n` : '';
  const body = `<h1>Choose what to connect</h1>
${ask}<p>Your ${esc(label)} sign-in gives access to ${p.choices.length} ${esc(words.plural.replace(`${label} `, ''))}. Choose the ones to connect.</p>
${error}<form method="post" action="${esc(p.action)}">
<input type="hidden" name="token" value="${esc(p.token)}">
${items}
<button type="submit" name="action" value="connect" class="primary">Connect selected</button>
<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form>`;
  return {
    kind: 'page',
    status: p.error ? 400 : 200,
    html: layout({ title: `Choose ${words.plural}`, body, brand: p.brand }),
  };
}

export function resultPage(p: {
  platform: PlatformName;
  status: string;
  accounts: { name: string }[];
  error: { code?: string; message: string } | null;
  brand?: Brand | null;
}): HostedOutcome {
  const brand = p.brand;
  const label = platformLabel(p.platform);
  switch (p.status) {
    case 'completed': {
      const list = p.accounts.map((a) => `<li>${esc(a.name)}</li>`).join('\n');
      return {
        kind: 'page',
        status: 200,
        html: layout({
          title: `${label} connected`,
          body: `<h1>${esc(label)} connected</h1>\n${brand ? `<p class="ask">${esc(brand.name)} can now publish to:</p>\n` : ''}<ul>\n${list}\n</ul>\n<p>You can close this window.</p>`,
          brand,
        }),
      };
    }
    case 'failed': {
      const again = 'If you want to try again, open the connect link you were given once more.';
      const why =
        p.error?.code === 'access_denied' || p.error?.code === 'cancelled'
          ? `You chose not to connect ${label}, so nothing was connected.`
          : `${label} could not be connected: ${p.error?.message ?? 'the sign-in did not finish.'}`;
      return messagePage(200, `${label} not connected`, `${why} ${again}`, brand);
    }
    case 'expired':
      return messagePage(
        410,
        'This link has expired',
        'Connect links are valid for one hour. Ask for a new one.',
        brand,
      );
    default:
      return messagePage(
        200,
        'Connection not finished',
        `Your ${label} connection is not finished yet. Go back to the window where you signed in to ${label}, or open the connect link you were given again to continue.`,
        brand,
      );
  }
}
