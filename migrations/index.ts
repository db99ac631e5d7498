/** Migrations in order. `npm run db:generate -- <Name>` appends here. */
import { Initial1795215858211 } from './1795215858211-Initial';
import { Webhooks1795216189657 } from './1795216189657-Webhooks';
import { PostsScheduling1795216254394 } from './1795216254394-PostsScheduling';
import { ConnectSessions1795216262302 } from './1795216262302-ConnectSessions';
import { PublishingResume1795216269913 } from './1795216269913-PublishingResume';
import { AccountTokenIssuedAt1795217270399 } from './1795217270399-AccountTokenIssuedAt';
import { Media1795217753052 } from './1795217753052-Media';
import { PostCounts1795217764109 } from './1795217764109-PostCounts';
import { AnalyticsComments1795217997057 } from './1795217997057-AnalyticsComments';
import { OutboxHandled1795222420242 } from './1795222420242-OutboxHandled';
import { TargetsWaitingOnNetwork1795230000000 } from './1795230000000-TargetsWaitingOnNetwork';
import { PostUsage1795525000000 } from './1795525000000-PostUsage';
import { ConnectBrowserBinding1795600000000 } from './1795600000000-ConnectBrowserBinding';
import { PostingQueues1795610000000 } from './1795610000000-PostingQueues';
import { ProfileBranding1795620000000 } from './1795620000000-ProfileBranding';
import { TargetFirstComment1795700000000 } from './1795700000000-TargetFirstComment';
import { PublishingCaps1795750000000 } from './1795750000000-PublishingCaps';
import { PublishingCapClaims1795760000000 } from './1795760000000-PublishingCapClaims';
import { PostTargetsByPost1795772000000 } from './1795772000000-PostTargetsByPost';
import { OutboxNotify1795790000000 } from './1795790000000-OutboxNotify';
import { PostCountShards1795800000000 } from './1795800000000-PostCountShards';
import { WebhookDeliveriesByEvent1795805000000 } from './1795805000000-WebhookDeliveriesByEvent';
// @generated-imports

export const MIGRATIONS: Function[] = [
  Initial1795215858211,
  Webhooks1795216189657,
  PostsScheduling1795216254394,
  ConnectSessions1795216262302,
  PublishingResume1795216269913,
  AccountTokenIssuedAt1795217270399,
  Media1795217753052,
  PostCounts1795217764109,
  AnalyticsComments1795217997057,
  OutboxHandled1795222420242,
  TargetsWaitingOnNetwork1795230000000,
  PostUsage1795525000000,
  ConnectBrowserBinding1795600000000,
  PostingQueues1795610000000,
  ProfileBranding1795620000000,
  TargetFirstComment1795700000000,
  PublishingCaps1795750000000,
  PublishingCapClaims1795760000000,
  PostTargetsByPost1795772000000,
  OutboxNotify1795790000000,
  PostCountShards1795800000000,
  WebhookDeliveriesByEvent1795805000000,
  // @generated-list
];
