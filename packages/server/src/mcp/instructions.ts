import { isWriteTool } from './read-only-gate.js';
import { TOOLS } from './tool-list.js';

/** Sent in the initialize result: tells an agent what Cairn is and when to reach for it. */
export const SERVER_INSTRUCTIONS = `Cairn holds this user's knowledge for AI agents: their personal preferences, their teams' standards and their organization's policies, in datapacks.

When to use Cairn:
- The user mentions Cairn, their datapacks, or asks you to remember, save, recall or look something up: use these tools.
- "List my datapacks" (or "list my Cairn datapacks"): call list_datapacks and answer from its result.
- Before a substantial task when the user has asked you to follow their standards: call get_guidance with the task, 4-8 short phrases in your own words for what the work touches (concerns, e.g. "database migration", "card data in logs"), the files you will read or change (files) and the repository name (project), so rules scoped to them are included; open a rule it names under mayAlsoApply with get_entry if it applies. Organization policies override team standards, which override personal preferences; say so when they conflict.
- When the user states a lasting preference ("always use pnpm") and asks you to remember it: save_entry with kind "preference". A team rule is a "standard" in a team datapack; an organization rule is a "policy" (organization admins only).
- Search before saving; if save_entry reports a near-duplicate, update that entry instead.

Never save secrets, API keys, passwords or tokens. When you use something from Cairn, say which entry it came from.`;

const readTools = TOOLS.filter((t) => !isWriteTool(t)).map((t) => t.name);
const writeTools = TOOLS.filter(isWriteTool).map((t) => t.name);

/** "a, b and c". */
function inWords(names: string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Added for a read-only key, so the agent does not offer to save and then fail. The tools are TOOLS, split by read-only-gate's rule. */
export const READ_ONLY_INSTRUCTIONS = `This connection uses a read-only Cairn API key: ${inWords(readTools)} work; ${inWords(writeTools)} are refused. If the user wants something saved, tell them to connect with a read-write key (Cairn portal: Settings > API Keys > Generate API key, "Read and write").`;
