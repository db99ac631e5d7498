import { addDays } from '../kit/days';
import { Get, Query } from '@nestjs/common';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { dailyAccountMetrics, dateRange, itemMetrics, type SandboxDailyMetrics } from '../kit/sandbox/sandbox-metrics';
import { Q, qs } from '../kit/sandbox/sandbox-request';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';
import { etag, YouTubeSandbox, YtChannel, YT_CHANNEL, ytFail } from './youtube-sandbox.service';

/** Per-day numbers of the YouTube Analytics report, from sandbox-metrics. likes = engagement − shares. */
const REPORT_METRICS: Record<string, (m: SandboxDailyMetrics, channelId: string) => number> = {
  views: (m) => m.views,
  likes: (m) => m.engagement - m.shares,
  comments: () => 0,
  shares: (m) => m.shares,
  subscribersGained: (m, c) => Math.max(0, m.followers - dailyAccountMetrics(c, addDays(m.date, -1)).followers),
  subscribersLost: () => 0,
  estimatedMinutesWatched: (m) => m.views * 2,
};

/** Simulated YouTube reads: video statistics, the uploads playlist, and YouTube Analytics reports. */
@SandboxController('youtube')
export class YouTubeSandboxDataController {
  constructor(private readonly yt: YouTubeSandbox) {}

  @Get('youtube/v3/videos')
  async videos(@Query() q: Q, @SandboxAuth(YT_CHANNEL) _ch: YtChannel): Promise<unknown> {
    const parts = qs(q.part).split(',').filter(Boolean);
    const ids = qs(q.id).split(',').filter(Boolean).slice(0, 50);
    const found = (await Promise.all(ids.map((id) => this.yt.videos.get(id)))).filter((v) => v !== null);
    const items = found.map((v) => {
      const m = itemMetrics(v.id);
      const all: Record<string, unknown> = {
        snippet: v.snippet,
        status: v.status,
        statistics: {
          viewCount: String(m.views),
          likeCount: String(m.likes),
          favoriteCount: '0',
          commentCount: String(m.comments),
        },
      };
      return {
        kind: v.kind,
        etag: v.etag,
        id: v.id,
        ...Object.fromEntries(parts.filter((p) => p in all).map((p) => [p, all[p]])),
      };
    });
    return {
      kind: 'youtube#videoListResponse',
      etag: etag(ids.join()),
      items,
      pageInfo: { totalResults: items.length, resultsPerPage: items.length },
    };
  }

  @Get('youtube/v3/playlistItems')
  async playlistItems(@Query() q: Q, @SandboxAuth(YT_CHANNEL) ch: YtChannel): Promise<unknown> {
    if (qs(q.playlistId) !== ch.uploadsPlaylistId)
      throw ytFail(
        404,
        'playlistNotFound',
        "The playlist identified with the request's playlistId parameter cannot be found.",
        'youtube.playlistItem',
      );
    const max = Math.min(50, Math.max(1, Number(qs(q.maxResults)) || 5));
    const videos = await this.yt.videos.of(ch.id, 0, max);
    const items = videos.map((v, i) => ({
      kind: 'youtube#playlistItem',
      etag: etag(`${ch.uploadsPlaylistId}:${v.id}`),
      id: `${ch.uploadsPlaylistId}.${v.id}`,
      snippet: {
        publishedAt: v.snippet.publishedAt,
        channelId: ch.id,
        title: v.snippet.title,
        description: v.snippet.description,
        channelTitle: ch.title,
        playlistId: ch.uploadsPlaylistId,
        position: i,
        resourceId: { kind: 'youtube#video', videoId: v.id },
      },
    }));
    return {
      kind: 'youtube#playlistItemListResponse',
      etag: etag(ch.uploadsPlaylistId),
      items,
      pageInfo: { totalResults: items.length, resultsPerPage: max },
    };
  }

  /** youtubeanalytics.googleapis.com/v2/reports with dimensions=day. */
  @Get('v2/reports')
  reports(@Query() q: Q, @SandboxAuth(YT_CHANNEL) ch: YtChannel): unknown {
    const ids = qs(q.ids);
    if (ids !== 'channel==MINE' && ids !== `channel==${ch.id}`) throw ytFail(403, 'forbidden', 'Forbidden', 'global');
    const metrics = qs(q.metrics).split(',').filter(Boolean);
    const unknown = metrics.find((m) => !(m in REPORT_METRICS));
    if (unknown || metrics.length === 0)
      throw ytFail(
        400,
        'badRequest',
        `Unknown identifier (${unknown ?? ''}) given in field parameters.metrics.`,
        'global',
      );
    if (qs(q.dimensions) !== 'day')
      throw ytFail(400, 'badRequest', 'The sandbox reports support dimensions=day only.', 'global');
    const from = qs(q.startDate);
    const to = qs(q.endDate);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to) || from > to)
      throw ytFail(400, 'badRequest', 'startDate and endDate must be YYYY-MM-DD with startDate <= endDate.', 'global');
    const rows = dateRange(from, to, 366).map((d) => {
      const day = dailyAccountMetrics(ch.id, d);
      return [d, ...metrics.map((m) => REPORT_METRICS[m](day, ch.id))];
    });
    return {
      kind: 'youtubeAnalytics#resultTable',
      columnHeaders: [
        { name: 'day', columnType: 'DIMENSION', dataType: 'STRING' },
        ...metrics.map((name) => ({ name, columnType: 'METRIC', dataType: 'INTEGER' })),
      ],
      rows,
    };
  }
}
