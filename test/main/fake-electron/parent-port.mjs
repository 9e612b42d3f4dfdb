// Loaded with --import into the stand-in utility process (a Node child): gives it Electron's
// `process.parentPort` on top of Node's IPC channel, so dist/gateway/desktop-child.js runs unchanged.
import { EventEmitter } from 'node:events';

const port = new EventEmitter();
port.postMessage = (message) => process.send?.(message);
process.on('message', (data) => port.emit('message', { data, ports: [] }));
process.parentPort = port;
