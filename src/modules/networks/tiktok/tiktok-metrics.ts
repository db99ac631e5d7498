import type { AccountCredentials, ItemMetrics } from '../kit/adapter';
import { arr, num, obj, str } from '../kit/http';
import { dayOf, unixDay } from '../kit/days';
import { Counters, dayRows, itemFromCounters, sumByDay } from '../kit/metrics';
import { TikTokApi } from './tiktok-api';

/**
 * TikTok's Display API has per-video counters and today's follower count, no per-day account analytics: a day's
 * row sums the videos created that day.
 */

const VIDEO_FIELDS = 'id,title,video_description,create_time,share_url,view_count,like_count,comment_count,share_count';
/** A video's counters (read into our names by readVideo): TikTok has no reach counter, views stand in. */
const VIDEO_COUNTERS: Counters = { reach: 'views' };

function readVideo(raw: unknown) {
  const v = obj(raw);
  const [title, description, shareUrl] = [str(v.title) ?? '', str(v.video_description) ?? '', str(v.share_url) ?? null];
  const counters: Record<string, number> = {
    views: num(v.view_count),
    likes: num(v.like_count),
    comments: num(v.comment_count),
    shares: num(v.share_count),
  };
  return { id: str(v.id) ?? '', title, description, createTime: num(v.create_time), shareUrl, counters };
}

type Video = ReturnType<typeof readVideo>;

/** The creator's latest videos, newest first, until `stopBefore` (unix seconds) or `maxPages`. */
export async function listVideos(api: TikTokApi, token: string, stopBefore = 0, maxPages = 5): Promise<Video[]> {
  const out: Video[] = [];
  let cursor: number | undefined;
  for (let page = 0; page < maxPages; page++) {
    const request = { max_count: 20, ...(cursor ? { cursor } : {}) };
    const body = await api.post(token, `/v2/video/list/?fields=${VIDEO_FIELDS}`, request);
    const data = obj(body.data);
    const videos = arr(data.videos).map(readVideo);
    out.push(...videos);
    if (data.has_more !== true || videos.length === 0 || videos.some((v) => v.createTime < stopBefore)) break;
    cursor = num(data.cursor);
  }
  return out;
}

export async function itemMetrics(api: TikTokApi, account: AccountCredentials, videoId: string): Promise<ItemMetrics> {
  const filters = { video_ids: [videoId] };
  const body = await api.post(account.accessToken, `/v2/video/query/?fields=${VIDEO_FIELDS}`, { filters });
  // A private (SELF_ONLY) post is known only by its publish_id and has no public counters.
  const { counters } = readVideo(arr(obj(body.data).videos)[0]);
  return itemFromCounters(VIDEO_COUNTERS, (name) => counters[name] ?? 0);
}

export async function dailyMetrics(api: TikTokApi, account: AccountCredentials, from: string, to: string) {
  const token = account.accessToken;
  const [videos, info] = await Promise.all([
    listVideos(api, token, unixDay(from)),
    api.json(token, '/v2/user/info/?fields=open_id,follower_count'),
  ]);
  const followers = num(obj(obj(info.data).user).follower_count);
  const byDay = sumByDay(videos, (v) => [dayOf(v.createTime * 1000), v.counters]);
  return dayRows({ from, to }, VIDEO_COUNTERS, followers, (name, date) => byDay.get(date)?.[name] ?? 0);
}
