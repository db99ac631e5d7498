/**
 * What every hosted page (connect, upload, "link not valid") shares: escaping, security headers,
 * the Content-Security-Policy and one accessible layout carrying the platform's branding.
 * Pages load nothing from another host: the logo is served by this service (`/branding/...`).
 */

/** Whose page this is: a profile's branding, else its workspace's name. */
export interface Brand {
  /** "Acme" in "Acme wants to publish to your Facebook Pages". */
  name: string;
  /** Path of the logo on this host (`/branding/<profileId>/logo?v=<hash>`), or null. */
  logoPath: string | null;
  /** `#rrggbb`, or null for the default look. */
  accentColor: string | null;
  /** An https: or mailto: link where the person can ask for help, or null. */
  supportUrl: string | null;
}

/** Headers of every hosted page besides its Content-Security-Policy. */
export const HOSTED_HEADERS: Readonly<Record<string, string>> = {
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // The page URL carries the session's token: never hand it to the next site.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/**
 * The strict policy: nothing but inline styles and images of this host (the logo) or inline
 * (`data:`, the empty favicon that stops a request for /favicon.ico); `extra` adds directives.
 */
export function hostedCsp(extra: string[] = []): string {
  return [
    "default-src 'none'",
    "img-src 'self' data:",
    "style-src 'unsafe-inline'",
    ...extra,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function esc(value: string | number | null | undefined): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const DEFAULT_ACCENT = '#2a5bd7';

/** Black or white, whichever reads better on `hex` (at least 4.58:1 for any colour, so WCAG AA holds). */
export function textOn(hex: string): '#000000' | '#ffffff' {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

function style(accent: string, extra: string): string {
  const a = /^#[0-9a-f]{6}$/i.test(accent) ? accent : DEFAULT_ACCENT;
  return `body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1a1a1a; }
header.brand { display: flex; align-items: center; gap: .75rem; padding-bottom: .75rem; margin-bottom: 1.5rem; border-bottom: 4px solid ${a}; }
header.brand img { max-height: 48px; max-width: 160px; }
.brand-name { font-weight: bold; font-size: 1.125rem; }
.ask { font-size: 1.125rem; }
fieldset { border: 1px solid #999; border-radius: 6px; padding: 1rem; }
fieldset label { display: block; padding: .4rem 0; font-weight: normal; }
button { font: inherit; padding: .5rem 1rem; margin: 1rem .5rem 0 0; min-height: 44px; border-radius: 6px; border: 1px solid #767676; background: #f4f4f4; color: #1a1a1a; }
button.primary { background: ${a}; border-color: ${a}; color: ${textOn(a)}; }
button:disabled { opacity: .55; cursor: not-allowed; }
button:focus-visible { outline: 3px solid #1a1a1a; outline-offset: 2px; }
footer { margin-top: 2rem; padding-top: 1rem; border-top: 1px solid #ccc; }
.error { color: #a00000; font-weight: bold; }
.muted { color: #555; }
${extra}`;
}

export interface LayoutInput {
  title: string;
  body: string;
  brand?: Brand | null;
  /** Page-specific CSS appended to the shared rules. */
  css?: string;
  /** An inline script and the CSP nonce that lets it run. */
  script?: { nonce: string; source: string };
}

/** The page: brand header (logo and name), the body in `<main>`, and the support link in the footer. */
export function layout(p: LayoutInput): string {
  const b = p.brand;
  const header = b
    ? `<header class="brand">${b.logoPath ? `<img src="${esc(b.logoPath)}" alt="" height="48">` : ''}<span class="brand-name">${esc(b.name)}</span></header>\n`
    : '';
  const footer = b?.supportUrl
    ? `\n<footer><p>Questions? <a href="${esc(b.supportUrl)}" rel="noopener noreferrer">Contact ${esc(b.name)}</a>.</p></footer>`
    : '';
  const script = p.script ? `\n<script nonce="${esc(p.script.nonce)}">${p.script.source}</script>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(p.title)}</title>
<link rel="icon" href="${b?.logoPath ? esc(b.logoPath) : 'data:,'}">
<style>${style(b?.accentColor ?? DEFAULT_ACCENT, p.css ?? '')}</style>
</head>
<body>
${header}<main>
${p.body}
</main>${footer}${script}
</body>
</html>`;
}

/** A page with a heading and one paragraph (errors, expired links, endings). */
export function messageHtml(title: string, message: string, brand?: Brand | null): string {
  return layout({ title, body: `<h1>${esc(title)}</h1>\n<p>${esc(message)}</p>`, brand });
}
