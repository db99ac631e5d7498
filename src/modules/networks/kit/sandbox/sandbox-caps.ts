import { capReached, capsWithOverrides, type PublishingCap } from '../caps';

/** The publishing caps the simulators enforce: each network's first cap, with NETWORK_CAPS applied. */
export class SandboxCaps {
  constructor(
    private readonly networks: readonly { name: string; caps: readonly PublishingCap[] }[],
    private readonly overrides: Record<string, number>,
  ) {}

  cap(network: string): PublishingCap {
    const definition = this.networks.find((n) => n.name === network);
    if (!definition) throw new Error(`${network} is not a network`);
    const [first] = capsWithOverrides(network, definition.caps, this.overrides);
    if (!first) throw new Error(`${network} declares no publishing cap`);
    return first;
  }

  /** Whether posts made at `times` (epoch ms) already fill the network's cap window. */
  reached(network: string, times: readonly number[]): boolean {
    return capReached(this.cap(network), times);
  }
}
