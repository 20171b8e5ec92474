#!/usr/bin/env node
import { realMachine } from './cli/real-machine.js';
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2), realMachine());
