// The WebSocket to the server: `hello` on every (re)connection, commands
// answered by `ack` or `error` through promises, reconnection with backoff,
// and a heartbeat that notices a connection that died silently (a phone
// asleep, a network change). Everything else the server sends goes to
// `onMessage`. In a cluster it follows the server's `table_elsewhere` to the
// node that owns the table just joined (see moveTo).

const PROTOCOL_VERSION = 1;
// The close codes for a session that ended, and for a ban (docs/protocol.md).
const SESSION_ENDED = 4003;
const BANNED = 4004;
const BACKOFF_MS = [250, 1000, 2000, 4000, 8000, 15000];
const HEARTBEAT_MS = 25000;
const HEARTBEAT_TIMEOUT_MS = 10000;

export class Connection {
  // `identity()` gives { name, token } for `hello`; `onWelcome(message)` is
  // called on each successful hello; `onStatus('connecting' | 'online' |
  // 'offline')` reports the state; `onMessage(message)` gets the rest.
  constructor({ identity, onWelcome, onMessage, onStatus, onBadToken, onNameTaken, onSessionEnded, onBanned }) {
    Object.assign(this, { identity, onWelcome, onMessage, onStatus, onBadToken, onNameTaken, onSessionEnded, onBanned });
    this.socket = null;
    this.nextId = 1;
    this.pending = new Map();
    this.attempt = 0;
    this.ready = false;
    this.retryTimer = null;
    this.heartbeat = null;
    // In a cluster: the node this connection moved to (`table_elsewhere`),
    // and the socket it left, closed once the new one is welcomed.
    this.nodeUrl = null;
    this.leaving = null;
    // A `table_elsewhere` to follow once nothing is in flight.
    this.hint = null;
    addEventListener('online', () => this.reconnectNow());
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') this.reconnectNow();
    });
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(this.nodeUrl ?? `${scheme}//${location.host}/ws`);
    this.socket = socket;
    this.ready = false;
    // A move to the table's node is not a reconnection the player need see.
    if (!this.leaving) this.onStatus('connecting');
    socket.addEventListener('open', () => this.hello());
    socket.addEventListener('message', (frame) => this.receive(frame.data));
    socket.addEventListener('close', (event) => {
      // 4003: the session was logged out, its password changed, or it
      // expired. Reconnecting with its token would only be refused, and as a
      // guest under the account's name too: stop and let the player choose.
      if (event.code === SESSION_ENDED && this.socket === socket) {
        this.stop();
        this.onSessionEnded();
      } else if (event.code === BANNED && this.socket === socket) {
        // A moderator's ban: the reason says until when. Coming back would
        // only be refused.
        this.stop();
        this.onBanned(event.reason);
      } else {
        this.abandon(socket);
      }
    });
  }

  // Gives up on `socket` (closed, silent, or the server going away): fails
  // what was in flight, then connects again after `delayMs`, or after the
  // next step of the backoff (with jitter, so a restarted server is not
  // hit by every client at once).
  abandon(socket, delayMs = null) {
    if (!socket || this.socket !== socket) return;
    this.socket = null;
    socket.close();
    // Back through the balancer: the table's node may be the one that went.
    this.nodeUrl = null;
    this.hint = null;
    this.leaving?.close();
    this.leaving = null;
    this.ready = false;
    clearInterval(this.heartbeat);
    for (const { reject } of this.pending.values()) {
      reject({ code: 'disconnected', message: 'the connection dropped' });
    }
    this.pending.clear();
    this.onStatus('offline');
    let delay = delayMs;
    if (delay === null) {
      const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
      this.attempt += 1;
      delay = base / 2 + Math.random() * base;
    }
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  // Closes the socket and does not reconnect until connect() or restart().
  stop() {
    const socket = this.socket;
    this.socket = null;
    this.ready = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    clearInterval(this.heartbeat);
    socket?.close();
  }

  // The browser came back online or the page became visible: no need to wait.
  reconnectNow() {
    if (this.retryTimer !== null) this.connect();
  }

  // Closes this socket and opens another (e.g. to say hello as someone else).
  restart() {
    if (this.socket) this.abandon(this.socket);
    this.attempt = 0;
    this.connect();
  }

  async hello() {
    const { name, token } = this.identity();
    try {
      const welcome = await this.request({ type: 'hello', protocol_version: PROTOCOL_VERSION, ...(token ? { token } : { name }) }, true);
      this.ready = true;
      this.attempt = 0;
      this.startHeartbeat();
      this.onStatus('online');
      this.onWelcome(welcome);
      // The tables are resumed on the new socket: the old one can go (a
      // moment later, so the resumes reach the table before it hears of it).
      const leaving = this.leaving;
      this.leaving = null;
      if (leaving) setTimeout(() => leaving.close(), 1000);
    } catch (error) {
      if ((error.code === 'bad_token' || error.code === 'session_expired') && name) {
        // The server no longer knows us (or the session ended): become a
        // new guest with the same name.
        this.onBadToken(error.code);
        this.hello();
      } else if (error.code === 'banned') {
        this.stop();
        this.onBanned(error.message);
      } else if (error.code === 'name_taken') {
        // An account has this name: no guest may play under it. Stay
        // offline until another name is chosen (restart() then).
        this.stop();
        this.onNameTaken();
      } else if (error.code !== 'disconnected') {
        this.onMessage({ type: 'error', ...error });
      }
    }
  }

  // In a cluster: the table just joined lives on the node at the hint's URL
  // (from the servers' settings). Once nothing is in flight, open a socket there, say hello with the same token
  // (onWelcome resumes every table), then close this one: the table's
  // messages stop crossing between nodes. Only an address on this page's
  // own host (the balancer routing on it, docs/self-hosting.md) is followed,
  // which is all the page's Content-Security-Policy lets it open, and only
  // once until the next drop, so a misconfigured address cannot send the
  // page round in circles. Ignoring it is fine: this node serves the table.
  moveTo() {
    if (!this.hint || !this.ready || this.pending.size > 0) return;
    let target = null;
    try {
      target = new URL(this.hint);
    } catch {
      // Not a URL: not followed.
    }
    this.hint = null;
    const sameHost = target?.host === location.host && /^wss?:$/.test(target.protocol);
    if (!sameHost || this.nodeUrl) return;
    this.nodeUrl = target.href;
    this.leaving = this.socket;
    this.connect();
  }

  startHeartbeat() {
    clearInterval(this.heartbeat);
    const socket = this.socket;
    this.heartbeat = setInterval(() => {
      if (this.socket !== socket) return;
      const timer = setTimeout(() => this.abandon(socket), HEARTBEAT_TIMEOUT_MS);
      this.request({ type: 'ping' }).then(() => clearTimeout(timer), () => clearTimeout(timer));
    }, HEARTBEAT_MS);
  }

  get online() {
    return this.ready;
  }

  // Sends a command; resolves with its `ack`, rejects with its `error`.
  send(command) {
    if (!this.ready) {
      return Promise.reject({ code: 'offline', message: 'not connected: reconnecting…' });
    }
    return this.request(command);
  }

  request(command, beforeHello = false) {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN || (!beforeHello && !this.ready)) {
      return Promise.reject({ code: 'offline', message: 'not connected' });
    }
    const id = this.nextId++;
    const promise = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    socket.send(JSON.stringify({ ...command, id }));
    return promise;
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    const waiting = message.id !== undefined ? this.pending.get(message.id) : undefined;
    if (waiting && (message.type === 'ack' || message.type === 'welcome' || message.type === 'error')) {
      this.pending.delete(message.id);
      if (message.type === 'error') waiting.reject(message);
      else waiting.resolve(message);
      this.moveTo();
      return;
    }
    if (message.type === 'table_elsewhere') {
      // It comes before the join's answer: followed once that is in.
      this.hint = message.url;
      this.moveTo();
      return;
    }
    if (message.type === 'shutdown') {
      // The server is going away: come back when it says.
      this.abandon(this.socket, message.reconnect_after_ms + Math.random() * 1000);
      return;
    }
    this.onMessage(message);
  }
}
