import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { ACCEPTED_MEDIA_TYPES, ACCEPTED_TYPE_LIST } from './media-types';

/**
 * The hosted upload page: server-rendered, plain, accessible HTML. A small inline script (CSP
 * nonce) asks the service for one upload URL per file, PUTs the file there, then marks the
 * session complete. Every value that reaches the page goes through `esc`.
 */
export interface HostedPage {
  status: number;
  html: string;
  headers: Record<string, string>;
}

const BASE_HEADERS: Record<string, string> = {
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // The page URL carries the session's token: never hand it to the next site.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

const STYLE = `body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1a1a1a; }
label { display: block; font-weight: bold; margin-bottom: .25rem; }
input[type=file] { font: inherit; }
button { font: inherit; padding: .5rem 1rem; margin-top: 1rem; }
.error { color: #a00000; font-weight: bold; }
.muted { color: #555; }`;

export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export function sendPage(res: Response, page: HostedPage): void {
  for (const [k, v] of Object.entries({ ...BASE_HEADERS, ...page.headers })) res.setHeader(k, v);
  res.status(page.status).type('html').send(page.html);
}

function layout(title: string, body: string, nonce?: string, script?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
${script && nonce ? `<script nonce="${nonce}">${script}</script>` : ''}
</body>
</html>`;
}

export function messagePage(status: number, title: string, message: string): HostedPage {
  return {
    status,
    headers: {
      'Content-Security-Policy':
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
    },
    html: layout(title, `<h1>${esc(title)}</h1>\n<p>${esc(message)}</p>`),
  };
}

export interface UploadPageInput {
  /** Path of the session's page; the script posts to `<action>/files` and `<action>/complete`. */
  action: string;
  token: string;
  maxFiles: number;
  expiresAt: Date;
  /** Origin the files are PUT to (this service for the local driver, the bucket for s3). */
  uploadOrigin: string;
  selfOrigin: string;
}

export function uploadPage(input: UploadPageInput): HostedPage {
  const nonce = randomBytes(16).toString('base64');
  const kinds = [...new Set(Object.values(ACCEPTED_MEDIA_TYPES))].map((e) => e.toUpperCase()).join(', ');
  const body = `<h1 id="title" tabindex="-1">Upload media</h1>
<p>Choose up to ${input.maxFiles} image or video file${input.maxFiles === 1 ? '' : 's'} (${esc(kinds)}). This link works until <time datetime="${esc(input.expiresAt.toISOString())}">${esc(input.expiresAt.toUTCString())}</time>.</p>
<form id="upload-form" method="post" action="${esc(input.action)}" data-token="${esc(input.token)}" data-max="${input.maxFiles}" novalidate>
<label for="files">Files to upload</label>
<input id="files" name="files" type="file" multiple accept="${esc(ACCEPTED_TYPE_LIST.join(','))}" aria-describedby="files-hint">
<p id="files-hint" class="muted">You can pick several files at once.</p>
<button id="submit" type="submit">Upload</button>
</form>
<p id="status" role="status" aria-live="polite"></p>
<ul id="uploaded" aria-label="Uploaded files"></ul>
<noscript><p class="error">This page needs JavaScript to send files.</p></noscript>`;
  const connect = [...new Set(["'self'", input.selfOrigin, input.uploadOrigin])].join(' ');
  return {
    status: 200,
    headers: {
      'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; connect-src ${connect}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    },
    html: layout('Upload media', body, nonce, SCRIPT),
  };
}

/** Runs in the person's browser (kept to plain ES2017, no dependencies). */
const SCRIPT = `
(function () {
  var form = document.getElementById('upload-form');
  var input = document.getElementById('files');
  var button = document.getElementById('submit');
  var status = document.getElementById('status');
  var list = document.getElementById('uploaded');
  var title = document.getElementById('title');
  var token = form.getAttribute('data-token');
  var max = Number(form.getAttribute('data-max'));
  var action = form.getAttribute('action');
  function say(text, isError) {
    status.textContent = text;
    status.className = isError ? 'error' : '';
    status.setAttribute('role', isError ? 'alert' : 'status');
  }
  async function post(path, body) {
    body.token = token;
    var res = await fetch(action + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    var data = await res.json().catch(function () { return {}; });
    if (!res.ok) throw new Error((data.error && data.error.message) || 'The service answered ' + res.status + '.');
    return data;
  }
  form.addEventListener('submit', async function (event) {
    event.preventDefault();
    var files = Array.prototype.slice.call(input.files || []);
    if (files.length === 0) { say('Choose at least one file.', true); input.focus(); return; }
    if (files.length > max) { say('Choose at most ' + max + ' file(s).', true); input.focus(); return; }
    button.disabled = true;
    try {
      for (var i = 0; i < files.length; i++) {
        var file = files[i];
        say('Uploading ' + file.name + ' (' + (i + 1) + ' of ' + files.length + ')…');
        var target = await post('/files', { fileName: file.name, fileType: file.type });
        var put = await fetch(target.uploadUrl, { method: 'PUT', headers: { 'Content-Type': target.fileType }, body: file });
        if (!put.ok) throw new Error(file.name + ' could not be uploaded (' + put.status + ').');
        var item = document.createElement('li');
        item.textContent = file.name;
        list.appendChild(item);
      }
      say('Finishing…');
      var done = await post('/complete', {});
      if (done.redirectUrl) { window.location.assign(done.redirectUrl); return; }
      form.hidden = true;
      title.textContent = 'Upload complete';
      say(done.media.length + ' file(s) uploaded. You can close this page.');
      title.focus();
    } catch (err) {
      say(err.message, true);
      button.disabled = false;
    }
  });
})();
`;
