import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PlatformName } from '@/modules/networks/platform-name';
import type { ContentType, PostState } from './post.entity';

/**
 * How many posts a profile has per state and content type, so `GET /v1/posts` can give an
 * exact `total` without counting the posts. Written only by PostgreSQL triggers on `posts`
 * (migration PostCounts): never insert or update these rows from the application.
 */
@Entity({ name: 'post_counts' })
export class PostCountEntity {
  @PrimaryColumn({ name: 'profile_id', type: 'uuid', primaryKeyConstraintName: 'pk_post_counts' })
  profileId: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_post_counts' })
  state: PostState;

  @PrimaryColumn({ name: 'content_type', type: 'text', primaryKeyConstraintName: 'pk_post_counts' })
  contentType: ContentType;

  @Column({ type: 'int', default: 0 })
  n: number;
}

/**
 * How many posts of a profile (per state and content type) have at least one target on a
 * platform: a post with two Facebook pages counts once. Kept by triggers on `posts` (state,
 * content type) and `post_targets` (insert, delete).
 */
@Entity({ name: 'post_platform_counts' })
export class PostPlatformCountEntity {
  @PrimaryColumn({ name: 'profile_id', type: 'uuid', primaryKeyConstraintName: 'pk_post_platform_counts' })
  profileId: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_post_platform_counts' })
  platform: PlatformName;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_post_platform_counts' })
  state: PostState;

  @PrimaryColumn({ name: 'content_type', type: 'text', primaryKeyConstraintName: 'pk_post_platform_counts' })
  contentType: ContentType;

  @Column({ type: 'int', default: 0 })
  n: number;
}
