import { randomBytes } from 'node:crypto';
import type { SandboxComment } from './sandbox-metrics';
import type { SandboxStore } from './sandbox-store';

/** `#sandbox-comment-fails[:<platform>]` in a comment's own text: the network refuses it (a failed first comment). */
const FAILS = /(^|[^\w-])#sandbox-comment-fails(?::([a-z]+))?(?![\w-])/gi;

export function commentRefusal(platform: string, text: string): string | null {
  for (const m of text.matchAll(FAILS)) {
    const only = m[2]?.toLowerCase();
    if (!only || only === platform) return `The ${platform} sandbox refused this comment (#sandbox-comment-fails).`;
  }
  return null;
}

/** An account's comment on its own item, listed after the item's generated comments. */
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
