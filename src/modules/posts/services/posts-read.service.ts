import { Injectable } from '@nestjs/common';
import type { AuthContext } from '@/common/auth/auth-context';
import { paged, pageWindow } from '@/common/pagination/pagination';
import type { ListPostsQueryDto } from '../dto/list-posts.dto';
import type { PostHistoryDto, PostListDto, PostResponseDto } from '../dto/post-response.dto';
import { toHistoryDto, toPostDetailDto, toPostDto } from '../post-mapper';
import { ListedTarget, PostsRepository } from './posts.repository';

/** GET /v1/posts, /v1/posts/{id}, /v1/posts/{id}/history. */
@Injectable()
export class PostsReadService {
  constructor(private readonly repo: PostsRepository) {}

  /** One query for the page, one for its exact total (counter rows), one for the page's targets. */
  async list(auth: AuthContext, query: ListPostsQueryDto): Promise<PostListDto> {
    const window = pageWindow(query);
    const { rows, total } = await this.repo.page(
      auth.profileId,
      { state: query.state, contentType: query.contentType, platform: query.platform },
      window,
      auth,
    );
    const targets = await this.repo.pageTargets(rows.map((p) => p.id));
    const byPost = new Map<string, ListedTarget[]>();
    for (const t of targets) byPost.set(t.postId, [...(byPost.get(t.postId) ?? []), t]);
    return { posts: rows.map((p) => toPostDto(p, byPost.get(p.id) ?? [])), ...paged(window, total) };
  }

  async get(auth: AuthContext, id: string): Promise<PostResponseDto> {
    const post = await this.repo.findInProfile(auth, id);
    return { post: toPostDetailDto(post, await this.repo.targetsOf([post.id])) };
  }

  async history(auth: AuthContext, id: string): Promise<PostHistoryDto> {
    const post = await this.repo.findInProfile(auth, id);
    return { history: (await this.repo.history(post.id)).map(toHistoryDto) };
  }
}
