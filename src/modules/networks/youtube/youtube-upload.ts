import { PlatformError } from '../kit/adapter';
import { ApiCall, Json, needed, obj, str } from '../kit/http';
import { downloadMedia } from '../kit/media-fetch';
import type { Progress } from '../kit/network-adapter';
import type { YouTubeClient } from './youtube-api';

/**
 * The resumable upload protocol (https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol):
 * POST the video resource → `Location` = session URL → PUT the bytes → 200/201 with the video.
 * An interrupted session is asked for its status with `Content-Range: bytes * /size`:
 * 308 + `Range` = bytes received so far, 200/201 = complete, 404/410 = expired.
 */

export interface YouTubeState {
  uploadUrl?: string;
  size?: number;
  /** Set just before the bytes are sent: from here on the video may exist. */
  uploadAttemptedAt?: string;
  videoId?: string;
}

/** What an upload session has received: the whole video, a part of it, or nothing (the session expired). */
type Status = { kind: 'complete'; video: Json } | { kind: 'incomplete'; received: number } | { kind: 'gone' };

export async function sessionStatus(client: YouTubeClient, token: string, url: string, size: number): Promise<Status> {
  const reply = await client.upload.call(token, url, {
    method: 'PUT',
    headers: { 'Content-Range': `bytes */${size}` },
    bytes: new Uint8Array(0),
    accept: [308, 404, 410],
  });
  if (reply.status === 404 || reply.status === 410) return { kind: 'gone' };
  if (reply.status === 308) {
    const m = /bytes=0-(\d+)/.exec(reply.headers.get('range') ?? '');
    return { kind: 'incomplete', received: m?.[1] ? Number(m[1]) + 1 : 0 };
  }
  return { kind: 'complete', video: obj(reply.json) };
}

type UploadContext = Progress<YouTubeState> & { client: YouTubeClient; token: string };

export async function resumableUpload(ctx: UploadContext, videoUrl: string, resource: Json): Promise<Json> {
  const { client, token, state } = ctx;
  const media = await downloadMedia(client.endpoints, videoUrl, 'video');
  const size = media.bytes.byteLength;
  let offset = 0;
  if (state.uploadUrl && state.size === size) {
    const status = await sessionStatus(client, token, state.uploadUrl, size);
    if (status.kind === 'complete') return status.video;
    if (status.kind === 'incomplete') offset = status.received;
    else delete state.uploadUrl;
  }
  if (!state.uploadUrl) {
    const init = await client.upload.call(token, '/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json; charset=UTF-8',
        'X-Upload-Content-Length': String(size),
        'X-Upload-Content-Type': media.contentType,
      },
      json: resource,
    });
    const location = needed(init.headers.get('location'), 'YouTube opened no upload session (no Location header).');
    Object.assign(state, { uploadUrl: location, size });
  }
  await ctx.save({ uploadAttemptedAt: new Date().toISOString() });
  const headers: Record<string, string> = { 'Content-Type': media.contentType };
  if (offset > 0) headers['Content-Range'] = `bytes ${offset}-${size - 1}/${size}`;
  const put: ApiCall = { method: 'PUT', headers, bytes: media.bytes.subarray(offset), accept: [308], creates: true };
  const reply = await client.upload.call(token, state.uploadUrl ?? '', put);
  const partly = 'YouTube received only part of the video; the next attempt resumes the upload.';
  if (reply.status === 308) throw new PlatformError(partly, 'network_error', true);
  return obj(reply.json);
}

/** Throws when YouTube already refused the video while processing the upload. */
export function refuseRejected(video: Json): void {
  const status = obj(video.status);
  const upload = str(status.uploadStatus);
  if (upload !== 'rejected' && upload !== 'failed') return;
  const reason = str(upload === 'rejected' ? status.rejectionReason : status.failureReason);
  const verb = upload === 'rejected' ? 'rejected the video' : 'could not process the video';
  throw new PlatformError(`YouTube ${verb}: ${reason ?? upload}.`, 'media_rejected', false, { networkCode: reason });
}
