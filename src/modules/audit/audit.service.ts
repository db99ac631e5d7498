import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AuthContext } from '@/common/auth/auth-context';
import { RequestLogEntity } from '@/common/logging/request-log.entity';
import { EventEntity } from '@/common/outbox/event.entity';
import { paged, pageWindow } from '@/common/pagination/pagination';
import { eventScopeCondition } from './event-scope';
import { AuditEventListDto, ListEventsQueryDto, ListLogsQueryDto, RequestLogListDto } from './dto/audit.dto';

@Injectable()
export class AuditService {
  constructor(
    @InjectRepository(EventEntity) private readonly events: Repository<EventEntity>,
    @InjectRepository(RequestLogEntity) private readonly logs: Repository<RequestLogEntity>,
  ) {}

  async listEvents(auth: AuthContext, query: ListEventsQueryDto): Promise<AuditEventListDto> {
    const window = pageWindow(query);
    const qb = this.events
      .createQueryBuilder('e')
      .where('e.workspace_id = :ws AND e.profile_id = :profileId', { ws: auth.workspaceId, profileId: auth.profileId });
    if (query.type) qb.andWhere('e.type = :type', { type: query.type });
    // A key restricted to accounts sees only events about its accounts and its posts (event-scope.ts).
    if (auth.accountIds) qb.andWhere(eventScopeCondition('e.data'), { scopeAccountIds: auth.accountIds });
    const [rows, total] = await qb
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .skip(window.offset)
      .take(window.limit)
      .getManyAndCount();
    return {
      events: rows.map((e) => ({
        id: e.id,
        type: e.type,
        createdAt: e.createdAt.toISOString(),
        actor: e.actor,
        data: e.data,
      })),
      ...paged(window, total),
    };
  }

  async listLogs(auth: AuthContext, query: ListLogsQueryDto): Promise<RequestLogListDto> {
    const window = pageWindow(query);
    const where = {
      workspaceId: auth.workspaceId,
      profileId: auth.profileId,
      ...(query.status ? { status: query.status } : {}),
      ...(query.method ? { method: query.method } : {}),
      // A key restricted to accounts sees only its own requests (paths name other accounts' posts).
      ...(auth.accountIds ? { keyId: auth.keyId } : {}),
    };
    const [rows, total] = await this.logs.findAndCount({
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: window.offset,
      take: window.limit,
    });
    return {
      logs: rows.map((l) => ({
        id: l.id,
        requestId: l.requestId,
        method: l.method,
        path: l.path,
        status: l.status,
        durationMs: l.durationMs,
        keyId: l.keyId,
        createdAt: l.createdAt.toISOString(),
      })),
      ...paged(window, total),
    };
  }
}
