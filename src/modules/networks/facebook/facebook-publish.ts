import { PlatformError } from '../kit/adapter';
import type { PublishLookup, PublishRequest, PublishResult } from '../kit/adapter';
import { str } from '../kit/http';
import { progress } from '../kit/network-adapter';
import type { GraphPublisher } from '../kit/graph/graph-adapter';
import { GraphClient } from '../kit/graph/graph-client';
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
export type FacebookPublishState = {
  kind?: 'feed' | 'photo' | 'album' | 'video';
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
    if (state.postId) return { externalId: state.postId, url: await this.permalink(state.postId, token) };
    if (state.sentAt) {
      // An earlier attempt sent the creating call and never learned the answer: never resend blindly.
      const found = await this.findPublished({ account, content, publishState: state });
      if (found && found !== 'unknown') return found;
    }

    let postId: string;
    if (content.contentType === 'video') {
      if (!content.videoUrl) throw new PlatformError('A video post needs a video.', 'invalid_content', false);
      await save({ kind: 'video', sentAt: new Date().toISOString() });
      const res = await this.graph.post<{ id: string }>(
        `/${page}/videos`,
        { file_url: content.videoUrl, description: content.text, title: str(content.options.title) || undefined },
        token,
        { publish: true },
      );
      postId = res.id;
    } else if (content.contentType === 'image' && content.imageUrls.length === 1) {
      await save({ kind: 'photo', sentAt: new Date().toISOString() });
      const res = await this.graph.post<PhotoResponse>(
        `/${page}/photos`,
        { url: content.imageUrls[0], caption: content.text, published: true },
        token,
        { publish: true },
      );
      postId = res.post_id ?? `${page}_${res.id}`;
    } else if (content.contentType === 'image') {
      const photoIds = [...(state.photoIds ?? [])];
      for (const url of content.imageUrls.slice(photoIds.length)) {
        // Unpublished photos are invisible until attached, so a lost answer here only leaves an orphan.
        const res = await this.graph.post<PhotoResponse>(`/${page}/photos`, { url, published: false }, token);
        photoIds.push(res.id);
        await save({ kind: 'album', photoIds });
      }
      await save({ sentAt: new Date().toISOString() });
      const attached: Record<string, string> = {};
      photoIds.forEach((id, i) => (attached[`attached_media[${i}]`] = JSON.stringify({ media_fbid: id })));
      postId = (
        await this.graph.post<{ id: string }>(`/${page}/feed`, { message: content.text, ...attached }, token, {
          publish: true,
        })
      ).id;
    } else {
      await save({ kind: 'feed', sentAt: new Date().toISOString() });
      postId = (
        await this.graph.post<{ id: string }>(`/${page}/feed`, { message: content.text, link: content.link }, token, {
          publish: true,
        })
      ).id;
    }
    await save({ postId });
    return { externalId: postId, url: await this.permalink(postId, token) };
  }

  /** Looks for the post among the Page's recent posts (or videos) created since the call was sent. */
  async findPublished(req: PublishLookup): Promise<PublishResult | null | 'unknown'> {
    const state = req.publishState as FacebookPublishState;
    const token = req.account.accessToken;
    const page = req.account.platformAccountId;
    if (state.postId) return { externalId: state.postId, url: await this.permalink(state.postId, token) };
    if (!state.sentAt) return null;
    const since = Math.floor(Date.parse(state.sentAt) / 1000) - 120;
    const video = state.kind === 'video';
    const list = await this.graph.get<GraphList<FeedItem>>(
      video ? `/${page}/videos` : `/${page}/published_posts`,
      {
        fields: video ? 'id,description,created_time,permalink_url' : 'id,message,created_time,permalink_url',
        since,
        limit: 50,
      },
      token,
    );
    // A post without the text field is not the one looked for, even when the text is empty.
    const field = video ? 'description' : 'message';
    const withText = list.data.filter((p) => typeof p[field] === 'string');
    const hit = recentMatch(withText, { text: field, time: 'created_time' }, req.content.text, since * 1000);
    return hit ? { externalId: hit.id, url: hit.permalink_url ?? null } : null;
  }

  private permalink(id: string, token: string): Promise<string | null> {
    return this.graph.field(id, 'permalink_url', token);
  }
}
