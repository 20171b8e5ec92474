import { createDatapackTool } from './tools/create-datapack.js';
import { deleteEntryTool } from './tools/delete-entry.js';
import { getEntryTool } from './tools/get-entry.js';
import { getGuidanceTool } from './tools/get-guidance.js';
import { listDatapacksTool } from './tools/list-datapacks.js';
import { restoreEntryTool } from './tools/restore-entry.js';
import { saveEntryTool } from './tools/save-entry.js';
import { searchTool } from './tools/search.js';
import { updateEntryTool } from './tools/update-entry.js';

/** Every tool Cairn serves, in the order tools/list shows them. */
export const TOOLS = [
  listDatapacksTool,
  searchTool,
  getGuidanceTool,
  getEntryTool,
  saveEntryTool,
  updateEntryTool,
  deleteEntryTool,
  restoreEntryTool,
  createDatapackTool,
];
