import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AuthContext } from '@/common/auth/auth-context';
import { RequestLogEntity } from '@/common/logging/request-log.entity';
import { EventEntity } from '@/common/outbox/event.entity';
import { paged, pageWindow } from '@/common/pagination/pagination';
import { AuditEventListDto, ListEventsQueryDto, ListLogsQueryDto, RequestLogListDto } from './dto/audit.dto';

@Injectable()
export class AuditService {
  constructor(
    @InjectRepository(EventEntity) private readonly events: Repository<EventEntity>,
    @InjectRepository(RequestLogEntity) private readonly logs: Repository<RequestLogEntity>,
  ) {}

  async listEvents(auth: AuthContext, query: ListEventsQueryDto): Promise<AuditEventListDto> {
    const window = pageWindow(query);
    const where = {
      workspaceId: auth.workspaceId,
      profileId: auth.profileId,
      ...(query.type ? { type: query.type } : {}),
    };
    const [rows, total] = await this.events.findAndCount({
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: window.offset,
      take: window.limit,
    });
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
