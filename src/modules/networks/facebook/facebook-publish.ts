import { PlatformError } from '../kit/adapter';
import type { PublishLookup, PublishRequest, PublishResult } from '../kit/adapter';
import { str } from '../kit/http';
import { lookedFirst, progress } from '../kit/network-adapter';
import type { GraphPublisher } from '../kit/graph/graph-adapter';
import type { GraphClient, GraphParams } from '../kit/graph/graph-client';
import { GraphList, recentMatch } from '../kit/graph/graph-shapes';

/**
 * Facebook Page publishing (Pages API):
 *   text/link → POST /{page-id}/feed { message, link }
 *   1 photo   → POST /{page-id}/photos { url, caption }
 *   2–10      → POST /{page-id}/photos { url, published=false } per photo, then
 *               POST /{page-id}/feed { message, attached_media[i]={"media_fbid":…} }
 *   video     → POST /{page-id}/videos { file_url, description }
 * Progress (unpublished photo ids, the time the publish call was sent, the result) is saved
 * before each next call so a resumed attempt continues and an unknown outcome can be checked.
 */
type Kind = 'feed' | 'photo' | 'album' | 'video';

export type FacebookPublishState = {
  kind?: Kind;
  photoIds?: string[];
  /** When the creating call was sent (ISO); present = the post may exist. */
  sentAt?: string;
  postId?: string;
};

interface PhotoResponse {
  id: string;
  post_id?: string;
}

type FeedItem = { id: string; permalink_url?: string } & Record<string, unknown>;

export class FacebookPublisher implements GraphPublisher {
  constructor(private readonly graph: GraphClient) {}

  async publish(req: PublishRequest): Promise<PublishResult> {
    const { account, content } = req;
    const { state, save } = progress<FacebookPublishState>(req);
    const page = account.platformAccountId;
    const token = account.accessToken;
    if (state.postId) return this.result(state.postId, token);
    // An earlier attempt sent the creating call and never learned the answer: never resend blindly.
    const cannotTell = 'An earlier attempt may have published this post; Facebook cannot tell.';
    const found = state.sentAt ? lookedFirst(await this.findPublished(req), cannotTell) : null;
    if (found) return found;
    /** The creating call: its time is saved first, so that an unknown outcome can be looked up. */
    const send = async <T extends { id: string }>(kind: Kind, edge: string, params: GraphParams): Promise<T> => {
      await save({ kind, sentAt: new Date().toISOString() });
      return this.graph.post<T>(`/${page}/${edge}`, params, token, { publish: true });
    };
    let postId: string;
    if (content.contentType === 'video') {
      if (!content.videoUrl) throw new PlatformError('A video post needs a video.', 'invalid_content', false);
      const title = str(content.options.title) || undefined;
      postId = (await send('video', 'videos', { file_url: content.videoUrl, description: content.text, title })).id;
    } else if (content.contentType === 'image' && content.imageUrls.length === 1) {
      const params = { url: content.imageUrls[0], caption: content.text, published: true };
      const res = await send<PhotoResponse>('photo', 'photos', params);
      postId = res.post_id ?? `${page}_${res.id}`;
    } else if (content.contentType === 'image') {
      const photoIds = [...(state.photoIds ?? [])];
      for (const url of content.imageUrls.slice(photoIds.length)) {
        // Unpublished photos are invisible until attached, so a lost answer here only leaves an orphan.
        const res = await this.graph.post<PhotoResponse>(`/${page}/photos`, { url, published: false }, token);
        photoIds.push(res.id);
        await save({ kind: 'album', photoIds });
      }
      const attached: Record<string, string> = {};
      photoIds.forEach((id, i) => (attached[`attached_media[${i}]`] = JSON.stringify({ media_fbid: id })));
      postId = (await send('album', 'feed', { message: content.text, ...attached })).id;
    } else {
      postId = (await send('feed', 'feed', { message: content.text, link: content.link })).id;
    }
    await save({ postId });
    return this.result(postId, token);
  }

  /** Looks for the post among the Page's recent posts (or videos) created since the call was sent. */
  async findPublished(req: PublishLookup): Promise<PublishResult | null | 'unknown'> {
    const state = req.publishState as FacebookPublishState;
    const token = req.account.accessToken;
    const page = req.account.platformAccountId;
    if (state.postId) return this.result(state.postId, token);
    if (!state.sentAt) return null;
    const since = Math.floor(Date.parse(state.sentAt) / 1000) - 120;
    const [edge, field] = state.kind === 'video' ? ['videos', 'description'] : ['published_posts', 'message'];
    const query = { fields: `id,${field},created_time,permalink_url`, since, limit: 50 };
    const list = await this.graph.get<GraphList<FeedItem>>(`/${page}/${edge}`, query, token);
    // A post without the text field is not the one looked for, even when the text is empty.
    const withText = list.data.filter((p) => typeof p[field] === 'string');
    const hit = recentMatch(withText, { text: field, time: 'created_time' }, req.content.text, since * 1000);
    return hit ? { externalId: hit.id, url: hit.permalink_url ?? null } : null;
  }

  private async result(id: string, token: string): Promise<PublishResult> {
    return { externalId: id, url: await this.graph.field(id, 'permalink_url', token) };
  }
}
