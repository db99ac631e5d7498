import { Injectable } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import { SandboxCaps } from './sandbox-caps';
import { SandboxMediaFetch } from './sandbox-media';
import { SandboxOAuth } from './sandbox-oauth';
import { SandboxRecords, SandboxStore } from './sandbox-store';

/** The kit's services, given to every simulator's state (which declares no constructor of its own). */
@Injectable()
export class SandboxKit {
  constructor(
    readonly store: SandboxStore,
    readonly config: AppConfig,
    readonly caps: SandboxCaps,
    readonly media: SandboxMediaFetch,
    readonly oauth: SandboxOAuth,
  ) {}

  /** A sample media file the control routes serve (`image.png`…), as a simulated profile links its picture. */
  sampleMedia(file: string): string {
    return `${this.config.publicBaseUrl}/sandbox/_control/media/${file}`;
  }
}

/** A network's simulator state: the kit, its records in the store, and where its routes are (PUBLIC_BASE_URL/sandbox/<network>). */
export abstract class SimulatorState extends SandboxKit {
  protected abstract readonly network: string;

  get base(): string {
    return `${this.config.publicBaseUrl}/sandbox/${this.network}`;
  }

  protected records<T>(kind: string, idOf: (record: T) => string): SandboxRecords<T> {
    return new SandboxRecords(this.store, [this.network, kind], idOf);
  }
}
