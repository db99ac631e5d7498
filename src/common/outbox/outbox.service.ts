import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Actor, EventEntity } from './event.entity';

export interface NewEvent {
  workspaceId: string;
  profileId: string | null;
  type: string;
  actor: Actor;
  data: Record<string, unknown>;
}

/** An event's stored `data`: its profile first, then what the caller gave. */
function storedData(event: NewEvent): Record<string, unknown> {
  return event.profileId ? { profileId: event.profileId, ...event.data } : event.data;
}

/**
 * Writes audit/outbox rows. Always pass the EntityManager of the transaction that makes the
 * change, so the event commits (or rolls back) with it.
 */
@Injectable()
export class OutboxService {
  async record(manager: EntityManager, event: NewEvent): Promise<EventEntity> {
    const row = manager.create(EventEntity, {
      workspaceId: event.workspaceId,
      profileId: event.profileId,
      type: event.type,
      actor: event.actor,
      data: storedData(event),
      dispatchedAt: null,
    });
    return manager.save(row);
  }

  /**
   * The same rows as `record` (in this order) as an INSERT to embed in the caller's own statement
   * (a data-modifying CTE), so a change and its events are written in one round trip; `bind`
   * adds a parameter and answers its `$n`; `when` (SQL) writes them only if it holds (e.g. that
   * the change's own CTE matched a row). The statement must run on the change's transaction.
   */
  insertSql(events: NewEvent[], bind: (value: unknown) => string, when?: string): string {
    const column = <T>(f: (e: NewEvent) => T): string => bind(events.map(f));
    return `INSERT INTO events (workspace_id, profile_id, type, actor, data)
      SELECT e.workspace_id, e.profile_id, e.type, e.actor, e.data
        FROM unnest(${column((e) => e.workspaceId)}::uuid[], ${column((e) => e.profileId)}::uuid[], ${column((e) => e.type)}::text[],
                    ${column((e) => JSON.stringify(e.actor))}::jsonb[], ${column((e) => JSON.stringify(storedData(e)))}::jsonb[])
             WITH ORDINALITY AS e(workspace_id, profile_id, type, actor, data, n)
       ${when ? `WHERE ${when}` : ''}
       ORDER BY e.n`;
  }

  async recordMany(manager: EntityManager, events: NewEvent[]): Promise<void> {
    for (const e of events) await this.record(manager, e);
  }
}
