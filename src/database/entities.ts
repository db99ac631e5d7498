import { EventEntity } from '../common/outbox/event.entity';
import { IdempotencyKeyEntity } from '../common/idempotency/idempotency-key.entity';
import { RequestLogEntity } from '../common/logging/request-log.entity';
import { SocialAccountEntity } from '../modules/accounts/entities/social-account.entity';
import { AccountDailyMetricEntity } from '../modules/analytics/entities/account-daily-metric.entity';
import { AnalyticsBackfillEntity } from '../modules/analytics/entities/analytics-backfill.entity';
import { PostDailyMetricEntity } from '../modules/analytics/entities/post-daily-metric.entity';
import { CommentEntity } from '../modules/comments/entities/comment.entity';
import { ConnectSessionEntity } from '../modules/connect/entities/connect-session.entity';
import { ApiKeyEntity } from '../modules/keys/api-key.entity';
import { MediaEntity } from '../modules/media/entities/media.entity';
import { UploadSessionEntity } from '../modules/media/entities/upload-session.entity';
import { PolicyEntity } from '../modules/policy/policy.entity';
import { PostCountEntity, PostPlatformCountEntity } from '../modules/posts/entities/post-count.entity';
import { PostHistoryEntity } from '../modules/posts/entities/post-history.entity';
import { PostTargetEntity } from '../modules/posts/entities/post-target.entity';
import { PostEntity } from '../modules/posts/entities/post.entity';
import { ProfileEntity } from '../modules/profiles/profile.entity';
import { UserEntity } from '../modules/workspaces/user.entity';
import { WorkspaceEntity } from '../modules/workspaces/workspace.entity';
import { WebhookDeliveryEntity } from '../modules/webhooks/entities/webhook-delivery.entity';
import { WebhookSubscriptionEntity } from '../modules/webhooks/entities/webhook-subscription.entity';

/** Every entity, listed explicitly (no globs). Add new ones here. */
export const ENTITIES = [
  WorkspaceEntity,
  UserEntity,
  ProfileEntity,
  ApiKeyEntity,
  PolicyEntity,
  EventEntity,
  IdempotencyKeyEntity,
  RequestLogEntity,
  SocialAccountEntity,
  ConnectSessionEntity,
  PostEntity,
  PostTargetEntity,
  PostHistoryEntity,
  PostCountEntity,
  PostPlatformCountEntity,
  WebhookSubscriptionEntity,
  WebhookDeliveryEntity,
  MediaEntity,
  UploadSessionEntity,
  AccountDailyMetricEntity,
  PostDailyMetricEntity,
  AnalyticsBackfillEntity,
  CommentEntity,
];
