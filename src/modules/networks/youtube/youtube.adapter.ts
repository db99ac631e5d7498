import type { AccountCredentials, AdapterEndpoints, DailyAccountMetrics, GrantedAccount } from '../kit/adapter';
import type { ItemMetrics, OAuthTokens, PlatformAdapter, PublishContent, PublishLookup } from '../kit/adapter';
import type { PublishRequest, PublishResult, ValidationIssue } from '../kit/adapter';
import type { CommentRequest, CommentResult } from '../kit/adapter';
import { PlatformError } from '../kit/adapter';
import { ContentRules } from '../kit/content-rules';
import { cap, PublishingCap } from '../kit/caps';
import { arr, type Json, needed, num, obj, str } from '../kit/http';
import { daysBetween } from '../kit/days';
import { Counters, dayRows, itemFromCounters } from '../kit/metrics';
import { NetworkAdapter, progress } from '../kit/network-adapter';
import { OAuth2App } from '../kit/oauth';
import { googleHosts, YouTubeClient } from './youtube-api';
import { refuseRejected, resumableUpload, sessionStatus, YouTubeState } from './youtube-upload';

/**
 * YouTube Data API v3: Google OAuth (offline access → refresh token), channels?mine=true for the
 * channel, resumable upload of one video per post, YouTube Analytics for daily numbers.
 */

// youtube.force-ssl: commentThreads.insert (a post's first comment).
const YOUTUBE_SCOPES = ['youtube.upload', 'youtube.readonly', 'yt-analytics.readonly', 'youtube.force-ssl'].map(
  (scope) => `https://www.googleapis.com/auth/${scope}`,
);
export const YOUTUBE_TITLE_LIMIT = 100;
/** The description is the post's text, counted in UTF-8 bytes. */
export const YOUTUBE_RULES: ContentRules = {
  label: 'YouTube',
  maxText: 5000,
  textLength: (text) => Buffer.byteLength(text, 'utf8'),
  textUnit: 'bytes',
  requireVideo: true,
  images: { max: 0 },
};
// "Projects that enable the YouTube Data API have a default quota allocation of … 100
// videos.insert calls … Daily quotas reset at midnight Pacific Time": one bucket for the whole
// Google Cloud project, so every YouTube account of this service shares it.
export const YOUTUBE_CAPS: PublishingCap[] = [
  cap('uploads_per_day', 'day_pacific', 100, 'https://developers.google.com/youtube/v3/determine_quota_cost', 'app'),
];
export const PRIVACY = ['public', 'unlisted', 'private'];

/** A video's statistics: the Data API has no reach or share counter per video (reach reads views; shares stay 0). */
const STATISTICS: Counters = {
  views: 'viewCount',
  reach: 'viewCount',
  likes: 'likeCount',
  comments: 'commentCount',
  shares: [],
};
/** A day of the channel's Analytics report (views, likes, comments, shares columns). */
const DAY_COUNTERS: Counters = { reach: 'views' };

export class YouTubeAdapter extends NetworkAdapter implements PlatformAdapter {
  static readonly real = {
    apiBaseUrl: 'https://www.googleapis.com',
    authBaseUrl: 'https://accounts.google.com/o/oauth2/v2',
  };
  readonly platform = 'youtube' as const;
  protected readonly rules = YOUTUBE_RULES;
  private readonly client: YouTubeClient;

  constructor(endpoints: AdapterEndpoints) {
    const login = new OAuth2App(endpoints, {
      network: 'Google',
      url: `${endpoints.authBaseUrl}/auth`,
      tokenUrl: googleHosts(endpoints).tokenUrl,
      scopes: YOUTUBE_SCOPES,
      // offline + consent: Google returns a refresh token on every grant.
      extra: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
      noRefreshToken: 'Google granted no refresh token; reconnect the channel.',
    });
    super(login);
    this.client = new YouTubeClient(endpoints);
  }

  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const reply = await this.client.data.json(tokens.accessToken, '/channels?part=snippet,contentDetails&mine=true');
    return arr(reply.items).map((raw) => {
      const ch = obj(raw);
      const [id, snippet] = [str(ch.id) ?? '', obj(ch.snippet)];
      const [name, username] = [str(snippet.title) ?? id, str(snippet.customUrl) ?? null];
      const avatarUrl = str(obj(obj(snippet.thumbnails).default).url) ?? null;
      const metadata = { uploadsPlaylistId: uploadsOf(ch) ?? null };
      return { platformAccountId: id, name, username, avatarUrl, metadata };
    });
  }

  override validate(content: PublishContent): ValidationIssue[] {
    const issues = super.validate(content);
    const add = (field: string, message: string) => issues.push({ field, message });
    const title = str(content.options.title)?.trim() ?? '';
    const tooLong = `YouTube titles allow at most ${YOUTUBE_TITLE_LIMIT} characters; this one has ${title.length}.`;
    if (!title) add('youtube.title', 'YouTube needs a video title.');
    else if (title.length > YOUTUBE_TITLE_LIMIT) add('youtube.title', tooLong);
    if (/[<>]/.test(title)) add('youtube.title', 'YouTube titles cannot contain < or >.');
    if (/[<>]/.test(content.text)) add('text', 'YouTube descriptions cannot contain < or >.');
    const privacy = str(content.options.privacyStatus);
    if (privacy && !PRIVACY.includes(privacy))
      add('youtube.privacyStatus', `privacyStatus must be one of ${PRIVACY.join(', ')}.`);
    return issues;
  }

  async publish(req: PublishRequest): Promise<PublishResult> {
    const { state, save } = progress<YouTubeState>(req);
    if (state.videoId) return videoResult(state.videoId);
    const c = req.content;
    if (!c.videoUrl) throw new PlatformError('A YouTube post needs a video.', 'invalid_content', false);
    const o = c.options;
    const tags = arr(o.tags).flatMap((t) => str(t) || []);
    const resource = {
      snippet: {
        title: str(o.title) ?? '',
        description: c.text,
        categoryId: str(o.categoryId) ?? '22',
        ...(tags.length ? { tags } : {}),
      },
      status: { privacyStatus: str(o.privacyStatus) ?? 'public', selfDeclaredMadeForKids: o.madeForKids === true },
    };
    const upload = { client: this.client, token: req.account.accessToken, state, save };
    const video = await resumableUpload(upload, c.videoUrl, resource);
    const id = needed(str(video.id), 'YouTube finished the upload but returned no video id.', true);
    refuseRejected(video);
    await save({ videoId: id });
    return videoResult(id);
  }

  /** Asks the saved upload session; when it expired, looks among the channel's latest uploads. */
  async findPublished(req: PublishLookup): Promise<PublishResult | null | 'unknown'> {
    const state = req.publishState as YouTubeState;
    if (state.videoId) return videoResult(state.videoId);
    if (!state.uploadUrl || !state.size || !state.uploadAttemptedAt) return null;
    const token = req.account.accessToken;
    const status = await sessionStatus(this.client, token, state.uploadUrl, state.size);
    if (status.kind === 'complete') {
      const id = str(status.video.id);
      return id ? videoResult(id) : 'unknown';
    }
    // Not every byte arrived: YouTube creates the video only with the last one.
    if (status.kind === 'incomplete') return null;
    const playlistId =
      str(req.account.metadata.uploadsPlaylistId) ??
      uploadsOf(await this.channel(token, req.account.platformAccountId, 'contentDetails'));
    if (!playlistId) return 'unknown';
    const path = `/playlistItems?part=snippet&maxResults=10&playlistId=${encodeURIComponent(playlistId)}`;
    const items = arr((await this.client.data.json(token, path)).items);
    const since = Date.parse(state.uploadAttemptedAt) - 120_000;
    const title = str(req.content.options.title) ?? '';
    for (const raw of items) {
      const snippet = obj(obj(raw).snippet);
      const videoId = str(obj(snippet.resourceId).videoId);
      if (videoId && snippet.title === title && Date.parse(str(snippet.publishedAt) ?? '') >= since)
        return videoResult(videoId);
    }
    return null;
  }

  private async channel(token: string, channelId: string, part: string): Promise<Json> {
    const reply = await this.client.data.json(token, `/channels?part=${part}&id=${encodeURIComponent(channelId)}`);
    return obj(arr(reply.items)[0]);
  }

  /** The channel comments on its own video (commentThreads.insert): the thread's top-level comment id. */
  async postComment(req: CommentRequest): Promise<CommentResult> {
    const topLevelComment = { snippet: { textOriginal: req.text } };
    const body = { snippet: { channelId: req.account.platformAccountId, videoId: req.externalId, topLevelComment } };
    const path = '/commentThreads?part=snippet';
    const thread = await this.client.data.post(req.account.accessToken, path, body, { creates: true });
    const id = str(obj(obj(thread.snippet).topLevelComment).id) ?? str(thread.id);
    return { id: needed(id, 'YouTube accepted the comment but returned no id.', true) };
  }

  async getItemMetrics(account: AccountCredentials, externalId: string): Promise<ItemMetrics> {
    const path = `/videos?part=statistics&id=${encodeURIComponent(externalId)}`;
    const s = obj(obj(arr((await this.client.data.json(account.accessToken, path)).items)[0]).statistics);
    return itemFromCounters(STATISTICS, (name) => num(s[name]));
  }

  /** YouTube Analytics by day; subscribers per day counted back from today's total. */
  async getDailyMetrics(account: AccountCredentials, from: string, to: string): Promise<DailyAccountMetrics[]> {
    const token = account.accessToken;
    const query = new URLSearchParams({
      ids: `channel==${account.platformAccountId}`,
      startDate: from,
      endDate: to,
      metrics: 'views,likes,comments,shares,subscribersGained,subscribersLost',
      dimensions: 'day',
      sort: 'day',
    });
    const [body, channel] = await Promise.all([
      this.client.reports.json(token, `?${query.toString()}`),
      this.channel(token, account.platformAccountId, 'statistics'),
    ]);
    const columns = arr(body.columnHeaders).map((h) => str(obj(h).name) ?? '');
    const byDay = new Map(arr(body.rows).map((cells) => [str(arr(cells)[columns.indexOf('day')]) ?? '', arr(cells)]));
    const read = (name: string, date: string): number => num(byDay.get(date)?.[columns.indexOf(name)]);
    let subscribers = num(obj(channel.statistics).subscriberCount);
    const followers = new Map<string, number>();
    for (const date of daysBetween(from, to).reverse()) {
      followers.set(date, subscribers);
      subscribers -= read('subscribersGained', date) - read('subscribersLost', date);
    }
    return dayRows({ from, to }, DAY_COUNTERS, (date) => followers.get(date) ?? 0, read);
  }
}

/** A channel's uploads playlist (where its videos are listed, newest first). */
const uploadsOf = (channel: Json): string | undefined => str(obj(obj(channel.contentDetails).relatedPlaylists).uploads);

const videoResult = (id: string): PublishResult => ({ externalId: id, url: `https://www.youtube.com/watch?v=${id}` });
