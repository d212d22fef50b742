#!/usr/bin/env node
/** Entry point of `npm run demo`. */
import { runDemo } from './main.js';

const { conclusion, verified } = await runDemo();
process.exitCode = conclusion === 'success' && verified ? 0 : 1;
