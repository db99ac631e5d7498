import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PlatformName } from '@/modules/networks/platform-name';
import type { ContentType, PostState } from './post.entity';

/**
 * How many posts a profile has per state and content type, so `GET /v1/posts` can give an
 * exact `total` without counting the posts. Written only by PostgreSQL triggers on `posts`
 * (migrations PostCounts, PostCountShards): never insert or update these rows from the
 * application. Each key is split into shards, one per writing connection's shard, so one
 * profile's writers do not queue on the same rows; a count is the sum over the shards.
 */
@Entity({ name: 'post_counts' })
export class PostCountEntity {
  @PrimaryColumn({ name: 'profile_id', type: 'uuid', primaryKeyConstraintName: 'pk_post_counts' })
  profileId: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_post_counts' })
  state: PostState;

  @PrimaryColumn({ name: 'content_type', type: 'text', primaryKeyConstraintName: 'pk_post_counts' })
  contentType: ContentType;

  /** The writing connection's shard (`post_count_shard()`): a key's count is the sum of its shards. */
  @PrimaryColumn({ type: 'smallint', default: 0, primaryKeyConstraintName: 'pk_post_counts' })
  shard: number;

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

  /** The writing connection's shard (`post_count_shard()`): a key's count is the sum of its shards. */
  @PrimaryColumn({ type: 'smallint', default: 0, primaryKeyConstraintName: 'pk_post_platform_counts' })
  shard: number;

  @Column({ type: 'int', default: 0 })
  n: number;
}
