import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { Brand, esc, HOSTED_HEADERS, hostedCsp, layout, messageHtml } from '@/common/hosted-pages/hosted-page';
import { ACCEPTED_TYPE_LIST } from './media-types';

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

const CSS = `label[for=files] { display: block; font-weight: bold; margin-bottom: .25rem; }
input[type=file] { font: inherit; min-height: 44px; padding: .5rem 0; width: 100%; }
input[type=file]::file-selector-button { font: inherit; min-height: 44px; padding: .5rem 1rem; }
li button.remove { margin: .25rem 0 .25rem .5rem; padding: .25rem .75rem; }`;

export function sendPage(res: Response, page: HostedPage): void {
  for (const [k, v] of Object.entries({ ...HOSTED_HEADERS, ...page.headers })) res.setHeader(k, v);
  res.status(page.status).type('html').send(page.html);
}

export function messagePage(status: number, title: string, message: string, brand?: Brand | null): HostedPage {
  return { status, headers: { 'Content-Security-Policy': hostedCsp() }, html: messageHtml(title, message, brand) };
}

export interface UploadPageInput {
  /** Path of the session's page; the script posts to `<action>/files`, `<action>/files/remove` and `<action>/complete`. */
  action: string;
  token: string;
  maxFiles: number;
  expiresAt: Date;
  /** Files already in the session's set (a reload shows them, removable). */
  files: { key: string; fileName: string }[];
  /** Origin the files are PUT to (this service for the local driver, the bucket for s3). */
  uploadOrigin: string;
  selfOrigin: string;
  brand?: Brand | null;
}

/** "JPG, PNG, GIF, WebP" — the accepted kinds in the words a person knows. */
export const ACCEPTED_KINDS_TEXT = 'photos (JPG, PNG, GIF, WebP) and videos (MP4, MOV)';

export function uploadPage(input: UploadPageInput): HostedPage {
  const nonce = randomBytes(16).toString('base64');
  const one = input.maxFiles === 1;
  const items = input.files
    .map((f) => `<li data-key="${esc(f.key)}"><span class="name">${esc(f.fileName)}</span></li>`)
    .join('\n');
  const ask = input.brand ? `<p class="ask">${esc(input.brand.name)} asks you for photos or videos.</p>\n` : '';
  const body = `<h1 id="title" tabindex="-1">Upload media</h1>
${ask}<p id="intro">Choose ${one ? 'one file' : `up to ${input.maxFiles} files`}: ${esc(ACCEPTED_KINDS_TEXT)}. You can remove a file and add another before you finish. This link works until <time id="expires" datetime="${esc(input.expiresAt.toISOString())}">${esc(input.expiresAt.toUTCString())}</time>.</p>
<form id="upload-form" method="post" action="${esc(input.action)}" data-token="${esc(input.token)}" data-max="${input.maxFiles}" novalidate>
<label for="files">${one ? 'File to upload' : 'Files to upload'}</label>
<input id="files" name="files" type="file"${one ? '' : ' multiple'} accept="${esc(ACCEPTED_TYPE_LIST.join(','))}" aria-describedby="files-hint">
<p id="files-hint" class="muted">${one ? 'Pick one photo or video.' : 'You can pick several files at once.'}</p>
<button id="submit" type="submit" class="primary">Upload</button>
</form>
<p id="status" role="status" aria-live="polite"></p>
<h2 id="files-title">Your files</h2>
<ul id="uploaded" aria-labelledby="files-title">
${items}
</ul>
<p id="empty" class="muted"${input.files.length ? ' hidden' : ''}>No file yet.</p>
<button id="finish" class="primary" type="button"${input.files.length ? '' : ' disabled'}>Finish</button>
<noscript><p class="error">This page needs JavaScript to send files.</p></noscript>`;
  const connect = [...new Set(["'self'", input.selfOrigin, input.uploadOrigin])].join(' ');
  return {
    status: 200,
    headers: {
      'Content-Security-Policy': hostedCsp([
        `script-src 'nonce-${nonce}'`,
        `connect-src ${connect}`,
        "form-action 'self'",
      ]),
    },
    html: layout({ title: 'Upload media', body, brand: input.brand, css: CSS, script: { nonce, source: SCRIPT } }),
  };
}

/** Runs in the person's browser (kept to plain ES2017, no dependencies). */
const SCRIPT = `
(function () {
  var form = document.getElementById('upload-form');
  var input = document.getElementById('files');
  var button = document.getElementById('submit');
  var finish = document.getElementById('finish');
  var status = document.getElementById('status');
  var list = document.getElementById('uploaded');
  var empty = document.getElementById('empty');
  var title = document.getElementById('title');
  var intro = document.getElementById('intro');
  var expires = document.getElementById('expires');
  var token = form.getAttribute('data-token');
  var max = Number(form.getAttribute('data-max'));
  var action = form.getAttribute('action');
  var KINDS = ${JSON.stringify(ACCEPTED_KINDS_TEXT)};
  var ACCEPTED = ${JSON.stringify(ACCEPTED_TYPE_LIST)};
  try {
    expires.textContent = new Date(expires.getAttribute('datetime')).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  } catch (e) { /* keep the UTC text */ }
  function say(text, isError) {
    status.textContent = text;
    status.className = isError ? 'error' : '';
    status.setAttribute('role', isError ? 'alert' : 'status');
  }
  function count() { return list.querySelectorAll('li').length; }
  function refresh() {
    var n = count();
    empty.hidden = n > 0;
    finish.disabled = n === 0;
  }
  async function post(path, body) {
    body.token = token;
    var res = await fetch(action + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    var data = await res.json().catch(function () { return {}; });
    if (!res.ok) { var e = new Error((data.error && data.error.message) || 'The service answered ' + res.status + '.'); e.status = res.status; throw e; }
    return data;
  }
  function addItem(key, name, sig) {
    var item = document.createElement('li');
    item.setAttribute('data-key', key);
    if (sig) item.setAttribute('data-sig', sig);
    var label = document.createElement('span');
    label.className = 'name';
    label.textContent = name;
    item.appendChild(label);
    addRemove(item, name);
    list.appendChild(item);
    refresh();
  }
  function addRemove(item, name) {
    var remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'remove';
    remove.textContent = 'Remove';
    remove.setAttribute('aria-label', 'Remove ' + name);
    remove.addEventListener('click', async function () {
      remove.disabled = true;
      try {
        await post('/files/remove', { key: item.getAttribute('data-key') });
        item.remove();
        refresh();
        say(name + ' was removed.');
        input.focus();
      } catch (err) { say(err.message, true); remove.disabled = false; }
    });
    item.appendChild(document.createTextNode(' '));
    item.appendChild(remove);
  }
  Array.prototype.forEach.call(list.querySelectorAll('li'), function (item) {
    addRemove(item, item.querySelector('.name').textContent);
  });
  function signature(file) { return file.name + '|' + file.size; }
  function has(sig) { return !!list.querySelector('li[data-sig="' + sig.replace(/["\\\\]/g, '') + '"]'); }
  form.addEventListener('submit', async function (event) {
    event.preventDefault();
    var files = Array.prototype.slice.call(input.files || []);
    if (files.length === 0) { say('Choose a file first.', true); input.focus(); return; }
    var fresh = files.filter(function (f) { return !has(signature(f).replace(/["\\\\]/g, '')); });
    var room = max - count();
    if (fresh.length === 0) { say('These files are already in your list.', true); return; }
    if (fresh.length > room) {
      say(room === 0
        ? 'You already have ' + max + ' file' + (max === 1 ? '' : 's') + ', the most this link takes. Remove one to add another.'
        : 'You can add ' + room + ' more file' + (room === 1 ? '' : 's') + '. Pick fewer, or remove one from your list.', true);
      input.focus();
      return;
    }
    button.disabled = true;
    finish.disabled = true;
    var problems = [];
    for (var i = 0; i < fresh.length; i++) {
      var file = fresh[i];
      if (ACCEPTED.indexOf(file.type) < 0) {
        var kind = /\\.hei[cf]$/i.test(file.name) || /hei[cf]/i.test(file.type)
          ? ' is a HEIC photo, which cannot be posted. On an iPhone, choose Settings > Camera > Formats > Most Compatible, or share the photo as JPG.'
          : ' cannot be uploaded: this page takes ' + KINDS + '.';
        problems.push(file.name + kind);
        continue;
      }
      say('Uploading ' + file.name + ' (' + (i + 1) + ' of ' + fresh.length + ')…');
      var target = null;
      try {
        target = await post('/files', { fileName: file.name, fileType: file.type });
        var put = await fetch(target.uploadUrl, { method: 'PUT', headers: { 'Content-Type': target.fileType }, body: file });
        if (!put.ok) {
          var answer = await put.json().catch(function () { return {}; });
          throw new Error(put.status === 415
            ? 'is not a ' + file.type.split('/')[1].toUpperCase() + ' file inside'
            : (answer.error && answer.error.message) || 'could not be sent (' + put.status + ')');
        }
        addItem(target.key, file.name, signature(file).replace(/["\\\\]/g, ''));
      } catch (err) {
        if (target) await post('/files/remove', { key: target.key }).catch(function () {});
        problems.push(file.name + ' ' + String(err.message).replace(/^[A-Z]/, function (c) { return c.toLowerCase(); }).replace(/\\.$/, '') + '.');
      }
    }
    input.value = '';
    button.disabled = false;
    refresh();
    if (problems.length) say(problems.join(' ') + (count() ? ' The other files are in your list; press Finish when it is complete.' : ''), true);
    else say('Added. ' + count() + ' of ' + max + ' file' + (max === 1 ? '' : 's') + ' in your list. Press Finish when it is complete.');
  });
  finish.addEventListener('click', async function () {
    finish.disabled = true;
    button.disabled = true;
    say('Finishing…');
    try {
      var done = await post('/complete', {});
      if (done.redirectUrl) { window.location.assign(done.redirectUrl); return; }
      form.hidden = true;
      finish.hidden = true;
      Array.prototype.forEach.call(list.querySelectorAll('button'), function (b) { b.remove(); });
      document.title = 'Upload complete';
      title.textContent = 'Upload complete';
      intro.textContent = 'Your files were sent. You can close this page.';
      say(done.media.length + ' file(s) uploaded. You can close this page.');
      title.focus();
    } catch (err) {
      say(err.message, true);
      button.disabled = false;
      refresh();
    }
  });
})();
`;
