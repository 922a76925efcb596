// Preloaded (`node --import`) into servers the tests start that listen on
// every interface by default (server-everything's express app): a listen
// given only a port binds to loopback instead.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [port, host] = args;
  const portOnly = (typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port))) && typeof host !== "string";
  if (portOnly) return listen.call(this, Number(port), "127.0.0.1", ...args.slice(1));
  return listen.apply(this, args);
};
