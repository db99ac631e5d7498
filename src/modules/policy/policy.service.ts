import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { ApiError } from '@/common/errors/api-error';
import { OutboxService } from '@/common/outbox/outbox.service';
import { UsersService } from '../workspaces/users.service';
import { PolicyDto, PolicyResponseDto, UpdatePolicyDto } from './dto/policy.dto';
import { PolicyEntity } from './policy.entity';

export type EffectivePolicy = Omit<PolicyDto, 'updatedAt'>;

export function defaultPolicy(profileId: string): EffectivePolicy {
  return {
    profileId,
    allowedPlatforms: null,
    requireApproval: false,
    approverUserIds: [],
    blockedTerms: [],
    maxScheduleDaysAhead: null,
  };
}

function toDto(p: PolicyEntity): PolicyDto {
  return {
    profileId: p.profileId,
    allowedPlatforms: p.allowedPlatforms,
    requireApproval: p.requireApproval,
    approverUserIds: p.approverUserIds,
    blockedTerms: p.blockedTerms,
    maxScheduleDaysAhead: p.maxScheduleDaysAhead,
    updatedAt: p.updatedAt.toISOString(),
  };
}

@Injectable()
export class PolicyService {
  constructor(
    @InjectRepository(PolicyEntity) private readonly policies: Repository<PolicyEntity>,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly users: UsersService,
  ) {}

  async get(auth: AuthContext): Promise<PolicyResponseDto> {
    const row = await this.policies.findOne({ where: { profileId: auth.profileId, workspaceId: auth.workspaceId } });
    return { policy: row ? toDto(row) : { ...defaultPolicy(auth.profileId), updatedAt: null } };
  }

  /** The policy in force for a profile (what posts enforce); pass the transaction's manager when inside one. */
  async effective(profileId: string, manager?: EntityManager): Promise<EffectivePolicy> {
    const repo = manager ? manager.getRepository(PolicyEntity) : this.policies;
    const row = await repo.findOne({ where: { profileId } });
    if (!row) return defaultPolicy(profileId);
    const { updatedAt: _ignored, ...rest } = toDto(row);
    return rest;
  }

  /**
   * `effective` as a scalar subquery to embed in a caller's own statement (several reads in one
   * round trip): the profile is the SQL expression `profileId`; `effectiveFrom` reads its value.
   */
  effectiveSql(profileId: string): string {
    return `(SELECT jsonb_build_object('allowedPlatforms', allowed_platforms, 'requireApproval', require_approval,
               'approverUserIds', approver_user_ids, 'blockedTerms', blocked_terms, 'maxScheduleDaysAhead', max_schedule_days_ahead)
               FROM policies WHERE profile_id = ${profileId})`;
  }

  /** The policy in force from `effectiveSql`'s value (null: the profile has none, the defaults). */
  effectiveFrom(profileId: string, row: Omit<EffectivePolicy, 'profileId'> | null): EffectivePolicy {
    if (!row) return defaultPolicy(profileId);
    return {
      profileId,
      allowedPlatforms: row.allowedPlatforms,
      requireApproval: row.requireApproval,
      approverUserIds: row.approverUserIds,
      blockedTerms: row.blockedTerms,
      maxScheduleDaysAhead: row.maxScheduleDaysAhead,
    };
  }

  /** Of these profiles, those whose policy asks for review (one query for a batch of posts). */
  async requiringApproval(profileIds: string[], manager?: EntityManager): Promise<Set<string>> {
    if (profileIds.length === 0) return new Set();
    const repo = manager ? manager.getRepository(PolicyEntity) : this.policies;
    const rows = await repo.find({
      select: { profileId: true },
      where: { profileId: In(profileIds), requireApproval: true },
    });
    return new Set(rows.map((r) => r.profileId));
  }

  async update(auth: AuthContext, dto: UpdatePolicyDto): Promise<PolicyResponseDto> {
    return this.dataSource.transaction(async (m) => {
      if (dto.approverUserIds?.length) {
        const known = await this.users.existingIds(m, auth.workspaceId, dto.approverUserIds);
        const unknown = dto.approverUserIds.find((id) => !known.has(id));
        if (unknown)
          throw ApiError.invalid(
            'approverUserIds',
            `approverUserIds contains '${unknown}', which is not a user of this workspace.`,
          );
      }
      const current =
        (await m.findOne(PolicyEntity, {
          where: { profileId: auth.profileId },
          lock: { mode: 'pessimistic_write' },
        })) ?? m.create(PolicyEntity, { ...defaultPolicy(auth.profileId), workspaceId: auth.workspaceId });
      if (dto.allowedPlatforms !== undefined) current.allowedPlatforms = dto.allowedPlatforms;
      if (dto.requireApproval !== undefined) current.requireApproval = dto.requireApproval;
      if (dto.approverUserIds !== undefined) current.approverUserIds = [...new Set(dto.approverUserIds)];
      if (dto.blockedTerms !== undefined) current.blockedTerms = dto.blockedTerms;
      if (dto.maxScheduleDaysAhead !== undefined) current.maxScheduleDaysAhead = dto.maxScheduleDaysAhead;
      const saved = await m.save(current);
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: auth.profileId,
        type: 'policy.updated',
        actor: actorOf(auth),
        data: { policy: toDto(saved) },
      });
      return { policy: toDto(saved) };
    });
  }
}
