import type { AccountCredentials, DailyAccountMetrics, ItemMetrics } from '../kit/adapter';
import { arr, num, obj, str } from '../kit/http';
import { daysBetween } from '../kit/days';
import { TikTokClient } from './tiktok-api';

/**
 * TikTok's Display API gives per-video counters (video/query, video/list) and the creator's
 * current follower count (user/info); it has no per-day account analytics. Daily rows therefore
 * sum the videos created on each day, with today's follower count.
 */

const VIDEO_FIELDS = 'id,title,video_description,create_time,share_url,view_count,like_count,comment_count,share_count';

export interface TikTokVideo {
  id: string;
  title: string;
  description: string;
  createTime: number;
  shareUrl: string | null;
  views: number;
  likes: number;
  comments: number;
  shares: number;
}

function readVideo(raw: unknown): TikTokVideo {
  const v = obj(raw);
  return {
    id: str(v.id) ?? '',
    title: str(v.title) ?? '',
    description: str(v.video_description) ?? '',
    createTime: num(v.create_time),
    shareUrl: str(v.share_url) ?? null,
    views: num(v.view_count),
    likes: num(v.like_count),
    comments: num(v.comment_count),
    shares: num(v.share_count),
  };
}

/** The creator's latest videos, newest first, until `stopBefore` (unix seconds) or `maxPages`. */
export async function listVideos(
  client: TikTokClient,
  token: string,
  stopBefore = 0,
  maxPages = 5,
): Promise<TikTokVideo[]> {
  const out: TikTokVideo[] = [];
  let cursor: number | undefined;
  for (let page = 0; page < maxPages; page++) {
    const reply = await client.api(token, 'POST', `/v2/video/list/?fields=${VIDEO_FIELDS}`, {
      json: { max_count: 20, ...(cursor ? { cursor } : {}) },
    });
    const data = obj(obj(reply.json).data);
    const videos = arr(data.videos).map(readVideo);
    out.push(...videos);
    if (data.has_more !== true || videos.length === 0 || videos.some((v) => v.createTime < stopBefore)) break;
    cursor = num(data.cursor);
  }
  return out;
}

export async function itemMetrics(
  client: TikTokClient,
  account: AccountCredentials,
  videoId: string,
): Promise<ItemMetrics> {
  const reply = await client.api(account.accessToken, 'POST', `/v2/video/query/?fields=${VIDEO_FIELDS}`, {
    json: { filters: { video_ids: [videoId] } },
  });
  const raw = arr(obj(obj(reply.json).data).videos)[0];
  // A private (SELF_ONLY) post is known only by its publish_id and has no public counters.
  if (!raw) return { views: 0, likes: 0, comments: 0, shares: 0, reach: 0, engagement: 0 };
  const v = readVideo(raw);
  return {
    views: v.views,
    likes: v.likes,
    comments: v.comments,
    shares: v.shares,
    reach: v.views,
    engagement: v.likes + v.comments + v.shares,
  };
}

export async function dailyMetrics(
  client: TikTokClient,
  account: AccountCredentials,
  from: string,
  to: string,
): Promise<DailyAccountMetrics[]> {
  const token = account.accessToken;
  const [videos, info] = await Promise.all([
    listVideos(client, token, Date.parse(`${from}T00:00:00Z`) / 1000),
    client.api(token, 'GET', '/v2/user/info/?fields=open_id,follower_count'),
  ]);
  const followers = num(obj(obj(obj(info.json).data).user).follower_count);
  const rows = new Map(
    daysBetween(from, to).map((date) => [date, { date, views: 0, engagement: 0, shares: 0, followers, reach: 0 }]),
  );
  for (const v of videos) {
    const row = rows.get(new Date(v.createTime * 1000).toISOString().slice(0, 10));
    if (!row) continue;
    row.views += v.views;
    row.reach += v.views;
    row.shares += v.shares;
    row.engagement += v.likes + v.comments + v.shares;
  }
  return [...rows.values()];
}
