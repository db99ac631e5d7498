import type { Type } from '@nestjs/common';
import { AuditModule } from './modules/audit/audit.module';
import { HealthModule } from './modules/health/health.module';
import { KeysModule } from './modules/keys/keys.module';
import { PlansModule } from './modules/plans/plans.module';
import { PlatformsModule } from './modules/platforms/platforms.module';
import { PolicyModule } from './modules/policy/policy.module';
import { ProfilesModule } from './modules/profiles/profiles.module';

/** Domain modules, in one list so each feature adds itself in one line. */
export const FEATURE_MODULES: Type[] = [PlansModule, PlatformsModule, HealthModule, ProfilesModule, KeysModule, PolicyModule, AuditModule];
