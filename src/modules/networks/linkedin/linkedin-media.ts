import { PlatformError } from '../kit/adapter';
import { arr, needed, num, obj, pollOrThrow, str } from '../kit/http';
import { downloadMedia, mediaDeadline } from '../kit/media-fetch';
import type { Progress } from '../kit/network-adapter';
import { enc, LinkedInClient } from './linkedin-api';

/** Progress of one LinkedIn publish, saved before each next call so a resumed attempt continues. */
export interface LinkedInState {
  /** Image URNs whose bytes are uploaded, by position. */
  images?: (string | null)[];
  video?: VideoUpload;
  /** Set just before POST /rest/posts: from here on the post may exist. */
  postAttemptedAt?: string;
  postUrn?: string;
}

/** A video's upload, as initializeVideo starts it: the part ids (ETags) of the parts sent so far, then finalized. */
type VideoUpload = Awaited<ReturnType<typeof initializeVideo>>;

export type MediaContext = Progress<LinkedInState> & {
  client: LinkedInClient;
  token: string;
  owner: string;
  pollDelaysMs: number[];
};

/** Images API: fetch each image, initializeUpload, PUT the bytes; returns the image URNs in order. */
export async function uploadImages(ctx: MediaContext, urls: string[]): Promise<string[]> {
  const done = ctx.state.images ?? [];
  const deadline = mediaDeadline(ctx.client.endpoints); // one for all of the post's images
  for (const [i, url] of urls.entries()) {
    if (done[i]) continue;
    const media = await downloadMedia(ctx.client.endpoints, url, 'image', deadline);
    const request = { initializeUploadRequest: { owner: ctx.owner } };
    const value = obj((await ctx.client.rest.post(ctx.token, '/images?action=initializeUpload', request)).value);
    const missing = 'LinkedIn returned no upload URL for the image.';
    const [uploadUrl, urn] = [needed(str(value.uploadUrl), missing), needed(str(value.image), missing)];
    await ctx.client.upload(uploadUrl, media.bytes, media.contentType, ctx.token);
    done[i] = urn;
    await ctx.save({ images: done });
  }
  return done.slice(0, urls.length) as string[];
}

/** Videos API: initializeUpload, PUT each part (ETag = part id), finalizeUpload, wait until AVAILABLE. */
export async function uploadVideo(ctx: MediaContext, url: string): Promise<string> {
  let video = ctx.state.video;
  if (!video?.finalized) {
    const media = await downloadMedia(ctx.client.endpoints, url, 'video');
    if (!video || video.expiresAt <= Date.now() + 60_000) {
      video = await initializeVideo(ctx, media.bytes.byteLength);
      await ctx.save({ video });
    }
    for (const [i, part] of video.instructions.entries()) {
      if (video.partIds[i]) continue;
      const bytes = media.bytes.subarray(part.firstByte, part.lastByte + 1);
      const reply = await ctx.client.upload(part.uploadUrl, bytes, 'application/octet-stream');
      video.partIds[i] = needed(reply.headers.get('etag'), 'LinkedIn returned no ETag for an uploaded video part.');
      await ctx.save();
    }
    const parts = { video: video.urn, uploadToken: video.uploadToken, uploadedPartIds: video.partIds };
    await ctx.client.rest.post(ctx.token, '/videos?action=finalizeUpload', { finalizeUploadRequest: parts });
    video.finalized = true;
    await ctx.save();
  }
  await waitUntilAvailable(ctx, video.urn);
  return video.urn;
}

async function initializeVideo(ctx: MediaContext, size: number) {
  const request = { owner: ctx.owner, fileSizeBytes: size, uploadCaptions: false, uploadThumbnail: false };
  const init = { initializeUploadRequest: request };
  const value = obj((await ctx.client.rest.post(ctx.token, '/videos?action=initializeUpload', init)).value);
  const urn = str(value.video);
  const instructions = arr(value.uploadInstructions).map((raw) => {
    const it = obj(raw);
    return { uploadUrl: str(it.uploadUrl) ?? '', firstByte: num(it.firstByte), lastByte: num(it.lastByte) };
  });
  if (!urn || instructions.length === 0 || instructions.some((i) => !i.uploadUrl)) {
    throw new PlatformError('LinkedIn returned no upload instructions for the video.', 'network_error', true);
  }
  const expiresAt = num(value.uploadUrlsExpireAt) || Date.now() + 3_600_000;
  const partIds: string[] = [];
  return { urn, uploadToken: str(value.uploadToken) ?? '', instructions, expiresAt, partIds, finalized: false };
}

/** A video can be referenced by a post once processing made it AVAILABLE. */
async function waitUntilAvailable(ctx: MediaContext, urn: string): Promise<void> {
  const stillBusy = 'LinkedIn is still processing the video; the next attempt continues from here.';
  await pollOrThrow(ctx.pollDelaysMs, new PlatformError(stillBusy, 'network_error', true), async () => {
    const body = await ctx.client.rest.json(ctx.token, `/videos/${enc(urn)}`);
    const status = str(body.status);
    if (status === 'PROCESSING_FAILED') {
      const reason = str(body.processingFailureReason) ?? 'LinkedIn could not process the video.';
      throw new PlatformError(reason, 'media_rejected', false, { networkCode: status });
    }
    return status === 'AVAILABLE' ? true : undefined;
  });
}
