import { startTestCairn } from '../../testing/test-cairn.js';
import { runStoreConformance } from '../store.case.js';

runStoreConformance('sqlite', () => startTestCairn());
