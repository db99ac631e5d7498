import { TIKTOK_RULES } from './tiktok.adapter';
import { Body, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@/config/config';
import { enforceMagicWords, parseMagicWords } from '../kit/sandbox/magic-words';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { dailyAccountMetrics, itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { Q, qs } from '../kit/sandbox/sandbox-request';
import {
  TikTokSandbox,
  TtCreator,
  TT_CREATOR,
  TT_MAGIC,
  TtPublish,
  TtVideo,
  ttFail,
  ttOk,
  ttOkText,
  TT_PRIVACY_OPTIONS,
  TIKTOK_LOGIN,
} from './tiktok-sandbox.service';
import { LoginRoutes } from '../kit/sandbox/sandbox-login';
import { SandboxCaps } from '../kit/sandbox/sandbox-caps';

/**
 * Simulated TikTok: Login Kit OAuth v2, user info, and the Content Posting API (Direct Post,
 * PULL_FROM_URL). A publish reports PROCESSING_DOWNLOAD on its first status fetch and its final
 * status from the second on (#sandbox-review: PROCESSING_DOWNLOAD until SANDBOX_REVIEW_MS passed).
 */
const TT_VIDEO_LIST = TT_CREATOR('video.list');

@SandboxController('tiktok')
export class TikTokSandboxController {
  constructor(
    private readonly tt: TikTokSandbox,
    private readonly config: AppConfig,
    private readonly caps: SandboxCaps,
  ) {}

  @Get('v2/user/info')
  async userInfo(@Query('fields') fields: string, @SandboxAuth(TT_CREATOR()) c: TtCreator): Promise<unknown> {
    const today = new Date().toISOString().slice(0, 10);
    const all: Record<string, unknown> = {
      open_id: c.openId,
      union_id: `u-${c.openId}`,
      avatar_url: 'https://p16-sign.tiktokcdn-us.com/sandbox-avatar.jpeg',
      display_name: c.displayName,
      username: c.username,
      bio_description: 'A simulated TikTok creator.',
      is_verified: false,
      follower_count: dailyAccountMetrics(c.openId, today).followers,
      following_count: 42,
      likes_count: 1000,
      video_count: (await this.tt.videos.of(c.openId, 0, 1000)).length,
    };
    const user = pickFields(all, fields);
    if (!user) throw ttFail(400, 'invalid_params', 'The fields parameter is missing or has no valid field.');
    return ttOk({ user });
  }

  @Post('v2/post/publish/creator_info/query')
  @HttpCode(200)
  async creatorInfo(@SandboxAuth(TT_CREATOR('video.publish')) c: TtCreator): Promise<unknown> {
    await this.assertUnderCap(c);
    return ttOk({
      creator_avatar_url: 'https://p16-sign.tiktokcdn-us.com/sandbox-avatar.jpeg',
      creator_username: c.username,
      creator_nickname: c.displayName,
      privacy_level_options: TT_PRIVACY_OPTIONS,
      comment_disabled: false,
      duet_disabled: false,
      stitch_disabled: false,
      max_video_post_duration_sec: 600,
    });
  }

  @Post('v2/post/publish/video/init')
  @HttpCode(200)
  async videoInit(@Body() body: Q, @SandboxAuth(TT_CREATOR('video.publish')) c: TtCreator): Promise<unknown> {
    const info = (body.post_info ?? {}) as Q;
    const source = (body.source_info ?? {}) as Q;
    if (qs(source.source) !== 'PULL_FROM_URL')
      throw ttFail(400, 'invalid_params', 'The sandbox supports source PULL_FROM_URL only.');
    if (!qs(source.video_url)) throw ttFail(400, 'invalid_params', 'source_info.video_url is required.');
    return this.init(c, 'video', info, qs(info.title), [qs(source.video_url)]);
  }

  @Post('v2/post/publish/content/init')
  @HttpCode(200)
  async contentInit(@Body() body: Q, @SandboxAuth(TT_CREATOR('video.publish')) c: TtCreator): Promise<unknown> {
    const info = (body.post_info ?? {}) as Q;
    const source = (body.source_info ?? {}) as Q;
    const images = Array.isArray(source.photo_images) ? source.photo_images.map(qs) : [];
    if (qs(body.media_type) !== 'PHOTO' || qs(body.post_mode) !== 'DIRECT_POST')
      throw ttFail(400, 'invalid_params', 'media_type must be PHOTO and post_mode DIRECT_POST.');
    if (qs(source.source) !== 'PULL_FROM_URL' || images.length === 0 || images.length > TIKTOK_RULES.images.max)
      throw ttFail(
        400,
        'invalid_params',
        `source_info.photo_images must list 1 to ${TIKTOK_RULES.images.max} URLs pulled from URL.`,
      );
    return this.init(c, 'photo', info, qs(info.description), images);
  }

  @Post('v2/post/publish/status/fetch')
  @HttpCode(200)
  async status(@Body() body: Q, @SandboxAuth(TT_CREATOR()) c: TtCreator, @Res() res: Response): Promise<void> {
    const p = await this.tt.publishes.get(qs(body.publish_id));
    if (!p || p.openId !== c.openId)
      throw ttFail(400, 'invalid_publish_id', 'The publish_id does not exist or does not belong to this user.');
    p.polls += 1;
    const answer = async (data: string): Promise<void> => {
      await this.tt.publishes.put(p);
      res.type('application/json').send(ttOkText(data));
    };
    if (p.polls < 2 || (p.readyAt && Date.now() < p.readyAt))
      return answer(JSON.stringify({ status: 'PROCESSING_DOWNLOAD', downloaded_bytes: Math.floor(p.mediaBytes / 2) }));
    if (p.failReason) {
      const failed = {
        status: 'FAILED',
        fail_reason: p.failReason,
        publicaly_available_post_id: [],
        uploaded_bytes: 0,
      };
      return answer(JSON.stringify(failed));
    }
    if (!p.videoId && p.privacy !== 'SELF_ONLY') {
      const id = this.tt.newVideoId();
      const createTime = Math.floor(Date.now() / 1000);
      const shareUrl = `https://www.tiktok.com/@${c.username}/video/${id}`;
      const video: TtVideo = { id, openId: c.openId, title: p.title, description: p.description, createTime, shareUrl };
      await this.tt.videos.add(c.openId, video);
      p.videoId = video.id;
    }
    // Post ids are int64: sent as bare numbers, like TikTok does.
    const ids = p.videoId ?? '';
    return answer(
      `{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[${ids}],"downloaded_bytes":${p.mediaBytes}}`,
    );
  }

  @Post('v2/video/list')
  @HttpCode(200)
  async list(
    @SandboxAuth(TT_VIDEO_LIST) c: TtCreator,
    @Query('fields') fields: string,
    @Body() body: Q,
  ): Promise<unknown> {
    const start = Number(body.cursor) || 0;
    const count = Math.min(20, Math.max(1, Number(body.max_count) || 10));
    const page = await this.tt.videos.of(c.openId, start, count + 1);
    const videos = page.slice(0, count);
    const hasMore = page.length > count;
    return ttOk({
      videos: videos.map((v) => videoFields(v, fields)),
      cursor: start + videos.length,
      has_more: hasMore,
    });
  }

  @Post('v2/video/query')
  @HttpCode(200)
  async query(
    @SandboxAuth(TT_VIDEO_LIST) c: TtCreator,
    @Query('fields') fields: string,
    @Body('filters') filters: Record<string, unknown> | undefined,
  ): Promise<unknown> {
    const ids = Array.isArray(filters?.video_ids) ? filters.video_ids.map(qs).slice(0, 20) : [];
    const videos = (await Promise.all(ids.map((id) => this.tt.videos.get(id)))).filter(
      (v): v is TtVideo => v !== null && v.openId === c.openId,
    );
    return ttOk({ videos: videos.map((v) => videoFields(v, fields)), cursor: 0, has_more: false });
  }

  /** The creator's daily post cap (tiktokNetwork's): TikTok's spam_risk_too_many_posts past it. */
  private async assertUnderCap(c: TtCreator): Promise<void> {
    const times = (await this.tt.videos.of(c.openId)).map((v) => v.createTime * 1000);
    if (this.caps.reached('tiktok', times))
      throw ttFail(403, 'spam_risk_too_many_posts', 'The daily post cap from the API is reached for the current user.');
  }

  private async init(c: TtCreator, kind: 'video' | 'photo', info: Q, text: string, urls: string[]): Promise<unknown> {
    await this.tt.countInit(c.token);
    await this.assertUnderCap(c);
    const privacy = qs(info.privacy_level);
    if (!TT_PRIVACY_OPTIONS.includes(privacy))
      throw ttFail(
        400,
        'privacy_level_option_mismatch',
        `privacy_level ${privacy || '(none)'} is not one of the creator's options.`,
      );
    if (text.length > TIKTOK_RULES.maxText)
      throw ttFail(
        400,
        'invalid_params',
        `The ${kind === 'video' ? 'title' : 'description'} exceeds ${TIKTOK_RULES.maxText} characters.`,
      );
    await enforceMagicWords(
      this.tt.store,
      { platform: 'tiktok', accountId: c.openId, text, contentKey: urls.join('|') },
      TT_MAGIC,
    );
    const p: TtPublish = {
      publishId: this.tt.newPublishId(kind),
      openId: c.openId,
      kind,
      title: kind === 'video' ? text : qs(info.title),
      description: text,
      privacy,
      failReason: await this.tt.pullProblem(kind, urls),
      polls: 0,
      readyAt: parseMagicWords(text).review ? Date.now() + this.config.sandbox.reviewMs : null,
      videoId: null,
      mediaBytes: 10_000,
    };
    await this.tt.publishes.put(p);
    return ttOk({ publish_id: p.publishId });
  }
}

function videoFields(v: TtVideo, fields: string): Record<string, unknown> {
  const m = itemMetrics(v.id);
  const all: Record<string, unknown> = {
    id: v.id,
    title: v.title,
    video_description: v.description,
    create_time: v.createTime,
    share_url: v.shareUrl,
    view_count: m.views,
    like_count: m.likes,
    comment_count: m.comments,
    share_count: m.shares,
    duration: 15,
  };
  return pickFields(all, fields) ?? { id: v.id };
}

/** The `fields` (comma-separated) that `all` has; null when none. */
function pickFields(all: Record<string, unknown>, fields: string): Record<string, unknown> | null {
  const wanted = qs(fields)
    .split(',')
    .filter((f) => f in all);
  return wanted.length ? Object.fromEntries(wanted.map((f) => [f, all[f]])) : null;
}

/** The TikTok simulator: its login and its API routes. */
export const TIKTOK_SIMULATOR = {
  controllers: [LoginRoutes(TIKTOK_LOGIN), TikTokSandboxController],
  providers: [TikTokSandbox],
};
