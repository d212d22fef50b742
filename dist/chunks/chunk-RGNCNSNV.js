import { createRequire as __ciAgentCreateRequire } from 'node:module'; const require = __ciAgentCreateRequire(import.meta.url);
import{b as i}from"./chunk-YH4P7ZLW.js";i({jitless:!0});
