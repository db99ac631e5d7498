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
      data: event.profileId ? { profileId: event.profileId, ...event.data } : event.data,
      dispatchedAt: null,
    });
    return manager.save(row);
  }

  async recordMany(manager: EntityManager, events: NewEvent[]): Promise<void> {
    for (const e of events) await this.record(manager, e);
  }
}
