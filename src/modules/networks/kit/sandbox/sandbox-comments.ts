import { randomBytes } from 'node:crypto';
import type { SandboxComment } from './sandbox-metrics';
import type { SandboxStore } from './sandbox-store';

/**
 * Comments an account posts on its own sandbox items (a post's first comment). They are kept
 * beside the item's generated comments, so the network's GET comments shows them after those.
 *
 * Magic word (in the comment's own text): `#sandbox-comment-fails` — or
 * `#sandbox-comment-fails:<platform>` for one network — makes the simulator refuse the comment,
 * so a client can rehearse a failed first comment on a published post.
 */
const FAILS = /(^|[^\w-])#sandbox-comment-fails(?::([a-z]+))?(?![\w-])/gi;

/** The refusal message when the comment's text asks this platform to fail it, else null. */
export function commentRefusal(platform: string, text: string): string | null {
  for (const m of text.matchAll(FAILS)) {
    const only = m[2]?.toLowerCase();
    if (!only || only === platform) return `The ${platform} sandbox refused this comment (#sandbox-comment-fails).`;
  }
  return null;
}

export async function addOwnComment(
  store: SandboxStore,
  platform: string,
  itemId: string,
  author: { id: string; name: string },
  text: string,
  id = `${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`,
): Promise<SandboxComment> {
  const createdAt = new Date().toISOString();
  const comment: SandboxComment = { id, authorId: author.id, authorName: author.name, text, createdAt };
  await store.push([platform, 'item-comments', itemId], comment);
  return comment;
}

/** The item's own comments, oldest first. */
export async function ownComments(store: SandboxStore, platform: string, itemId: string): Promise<SandboxComment[]> {
  return (await store.list<SandboxComment>([platform, 'item-comments', itemId])).reverse();
}
