import { LINKEDIN_RULES } from './linkedin.adapter';
import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import {
  collection,
  LI_MAGIC,
  LI_MEMBER,
  LI_REST,
  LinkedInSandbox,
  LiMember,
  LiOrg,
  LiPost,
  liFail,
  littleTextToPlain,
  LINKEDIN_LOGIN,
} from './linkedin-sandbox.service';
import { enforceMagicWords } from '../kit/sandbox/magic-words';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';
import { addOwnComment, commentRefusal } from '../kit/sandbox/sandbox-comments';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { Q, qs } from '../kit/sandbox/sandbox-request';
import { LinkedInSandboxAnalyticsController } from './linkedin-sandbox-analytics.controller';
import { LinkedInSandboxMediaController } from './linkedin-sandbox-media.controller';
import { LoginRoutes } from '../kit/sandbox/sandbox-login';
import { SandboxCaps } from '../kit/sandbox/sandbox-caps';

/** Simulated LinkedIn OpenID userinfo, organizationAcls/organizations and the Posts API. */
@SandboxController('linkedin')
export class LinkedInSandboxController {
  constructor(
    private readonly li: LinkedInSandbox,
    private readonly caps: SandboxCaps,
  ) {}

  @Get('v2/userinfo')
  userinfo(@SandboxAuth(LI_MEMBER) m: LiMember): Record<string, unknown> {
    const [given, ...family] = m.name.split(' ');
    return {
      sub: m.sub,
      name: m.name,
      given_name: given,
      family_name: family.join(' '),
      picture: `${this.li.base.replace('/linkedin', '/_control')}/media/image.png`,
      locale: 'en-US',
      email_verified: true,
      email: `${m.sub}@sandbox.example`,
    };
  }

  @Get('rest/organizationAcls')
  acls(@Query() q: Q, @SandboxAuth(LI_REST) m: LiMember): unknown {
    if (qs(q.q) !== 'roleAssignee') throw liFail(400, `Invalid finder: ${qs(q.q)}`, 'ILLEGAL_ARGUMENT');
    const role = qs(q.role);
    const acl = (o: LiOrg) => ({ roleAssignee: m.urn, state: 'APPROVED', role: 'ADMINISTRATOR', organization: o.urn });
    return collection(role && role !== 'ADMINISTRATOR' ? [] : m.orgs.map(acl));
  }

  @Get('rest/organizations/:id')
  organization(@Param('id') rawId: string, @SandboxAuth(LI_REST) m: LiMember): unknown {
    const id = Number(rawId);
    const org = m.orgs.find((o) => o.id === id);
    if (!org)
      throw liFail(
        403,
        `Not enough permissions to access: organizations.GET.20240101 for urn:li:organization:${id}`,
        'ACCESS_DENIED',
        100,
      );
    return {
      vanityName: org.vanity,
      localizedName: org.name,
      id: org.id,
      $URN: org.urn,
      localizedWebsite: `https://${org.vanity}.example.com`,
      primaryOrganizationType: 'NONE',
    };
  }

  @Post('rest/posts')
  async createPost(@Body() body: Q, @SandboxAuth(LI_REST) m: LiMember, @Res() res: Response): Promise<void> {
    for (const field of ['author', 'commentary', 'visibility', 'distribution', 'lifecycleState']) {
      if (body[field] === undefined)
        throw liFail(422, `ERROR :: /${field} :: field is required but not found and has no default value\n`);
    }
    const author = this.li.assertOwner(m, body.author, 'partnerApiPostsExternal.CREATE.20240101');
    const plain = littleTextToPlain(qs(body.commentary));
    if (plain.length > LINKEDIN_RULES.maxText)
      throw liFail(
        422,
        `ERROR :: /commentary :: length of ${plain.length} exceeds the maximum allowed length of ${LINKEDIN_RULES.maxText}\n`,
      );
    const content =
      body.content && typeof body.content === 'object' ? (body.content as Record<string, unknown>) : undefined;
    const hasVideo = await this.checkContent(author, content);
    // The member's daily limit (linkedinNetwork's cap): LinkedIn's throttle answer past it.
    if (
      this.caps.reached(
        'linkedin',
        (await this.li.posts.of(author)).map((p) => p.createdAt),
      )
    )
      throw liFail(429, 'Resource level throttle MEMBER DAY limit for calls to this resource is reached.');
    await enforceMagicWords(
      this.li.store,
      { platform: 'linkedin', accountId: author, text: plain, contentKey: JSON.stringify(content ?? {}) },
      LI_MAGIC,
    );
    const now = Date.now();
    const id = `urn:li:${hasVideo ? 'ugcPost' : 'share'}:${this.li.newId()}`;
    const post: LiPost = {
      id,
      author,
      commentary: qs(body.commentary),
      visibility: qs(body.visibility),
      lifecycleState: qs(body.lifecycleState),
      content,
      createdAt: now,
      publishedAt: now,
      lastModifiedAt: now,
    };
    await this.li.posts.add(author, post);
    res.status(201).set({ 'x-restli-id': id, 'x-linkedin-id': id }).end();
  }

  /** Comments API: the actor (the post's author or an organisation it administers) comments on a post. */
  @Post('rest/socialActions/:urn/comments')
  async comment(
    @Param('urn') urn: string,
    @Body() body: Q,
    @SandboxAuth(LI_REST) m: LiMember,
    @Res() res: Response,
  ): Promise<void> {
    const actor = this.li.assertOwner(m, body.actor, 'partnerApiSocialActions.CREATE.20240101');
    const post = await this.li.posts.get(urn);
    if (!post) throw liFail(404, `Not Found: ${urn}`, 'NOT_FOUND');
    if (body.object !== undefined && body.object !== urn)
      throw liFail(400, `/object must be the socialActions target ${urn}`, 'ILLEGAL_ARGUMENT');
    const text = (body.message as { text?: unknown } | undefined)?.text;
    if (typeof text !== 'string' || !text.trim())
      throw liFail(422, 'ERROR :: /message/text :: field is required but not found and has no default value\n');
    const refused = commentRefusal('linkedin', text);
    if (refused) throw liFail(422, refused, 'UNPROCESSABLE_ENTITY');
    const id = this.li.newId();
    const activity = `urn:li:activity:${urn.split(':').at(-1)}`;
    const commentUrn = `urn:li:comment:(${activity},${id})`;
    await addOwnComment(this.li.store, 'linkedin', urn, { id: actor, name: m.name }, text, commentUrn);
    const stamp = { actor, time: Date.now() };
    res.status(201).set({ 'x-restli-id': commentUrn }).json({
      actor,
      commentUrn,
      created: stamp,
      lastModified: stamp,
      id,
      message: { text },
      object: urn,
      $URN: commentUrn,
    });
  }

  /** FINDER q=author: the author's posts, newest first. */
  @Get('rest/posts')
  async posts(@Query() q: Q, @SandboxAuth(LI_REST) m: LiMember): Promise<unknown> {
    if (qs(q.q) !== 'author') throw liFail(400, `Invalid finder: ${qs(q.q)}`, 'ILLEGAL_ARGUMENT');
    const author = this.li.assertOwner(m, qs(q.author), 'partnerApiPostsExternal.FINDER-author.20240101');
    const start = Math.max(0, Number(qs(q.start)) || 0);
    const count = Math.min(100, Math.max(1, Number(qs(q.count)) || 10));
    const elements = await this.li.posts.of(author, start, count);
    return { paging: { start, count, links: [], total: (await this.li.posts.of(author)).length }, elements };
  }

  /** Media referenced by a post must be AVAILABLE and owned by its author. Returns whether it is a video post. */
  private async checkContent(author: string, content: Record<string, unknown> | undefined): Promise<boolean> {
    if (!content) return false;
    const media = content.media as { id?: unknown } | undefined;
    const multi = (content.multiImage as { images?: { id?: unknown }[] } | undefined)?.images;
    const ids = media ? [media.id] : (multi ?? []).map((i) => i.id);
    // A multi-image post holds 2 images or more (one image is `media`), at most LINKEDIN_RULES' max.
    const max = LINKEDIN_RULES.images.max;
    if (multi && (multi.length < 2 || multi.length > max))
      throw liFail(422, `ERROR :: /content/multiImage/images :: array size ${multi.length} is not within 2..${max}\n`);
    let video = false;
    for (const raw of ids) {
      const id = typeof raw === 'string' ? raw : '';
      if (id.startsWith('urn:li:video:')) {
        const v = await this.li.videos.get(id);
        if (!v || v.owner !== author || !v.finalizedAt)
          throw liFail(400, `Video ${id} is not AVAILABLE or not owned by ${author}`, 'INVALID_CONTENT');
        video = true;
        continue;
      }
      const img = await this.li.images.get(id);
      if (!img || img.owner !== author || img.status !== 'AVAILABLE')
        throw liFail(400, `Image ${id || '(none)'} is not AVAILABLE or not owned by ${author}`, 'INVALID_CONTENT');
    }
    if (video && ids.length > 1) throw liFail(422, 'ERROR :: /content :: a post holds one video and no images\n');
    return video;
  }
}

/** The LinkedIn simulator: its login and its API routes. */
export const LINKEDIN_SIMULATOR = {
  controllers: [
    LoginRoutes(LINKEDIN_LOGIN),
    LinkedInSandboxController,
    LinkedInSandboxMediaController,
    LinkedInSandboxAnalyticsController,
  ],
  providers: [LinkedInSandbox],
};
