import { createRequire as __ciAgentCreateRequire } from 'node:module'; const require = __ciAgentCreateRequire(import.meta.url);
import{b as i}from"./chunk-KOINGHV5.js";i({jitless:!0});
