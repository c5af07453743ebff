/* global io */
/**
 * The browser side of the video hand-off proof (served by tests/helpers/handoff-browser.ts).
 * Real RTCPeerConnection + DataChannel; signaling through the service's `webrtc_signal`;
 * transfer records through its HTTP API (same origin, proxied by the page server).
 */
(() => {
  const CHUNK = 64 * 1024;
  const HIGH_WATER = 4 * 1024 * 1024;
  const LOW_WATER = 1024 * 1024;
  const state = {
    signalErrors: [],
    transfers: [],
    waiters: [],
    remoteSet: false,
    pendingCandidates: [],
    chain: Promise.resolve(),
  };
  let channelArrived;
  state.received = new Promise((resolve) => (channelArrived = resolve));
  window.handoffState = state;

  async function api(method, path, body) {
    const res = await fetch(path, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + state.token },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(method + ' ' + path + ' → ' + res.status + ' ' + JSON.stringify(json));
    return json.data;
  }

  function signal(kind, data) {
    state.signalsSent = (state.signalsSent || 0) + 1;
    if (state.direct)
      return window.directSignal({ matchSlug: state.matchSlug, kind, data }).then(() => ({ success: true }));
    return new Promise((resolve) =>
      state.socket.emit('webrtc_signal', { matchSlug: state.matchSlug, kind, data }, (ack) => {
        if (!ack.success) state.signalErrors.push(ack);
        resolve(ack);
      }),
    );
  }

  function randomFile(size) {
    const file = new Uint8Array(size);
    for (let i = 0; i < size; i += 65536) crypto.getRandomValues(file.subarray(i, Math.min(size, i + 65536)));
    return file;
  }

  /** Sends the file in 64 KB chunks, pausing above 4 MB buffered until the buffer drains to 1 MB. */
  async function pump(channel, file) {
    let maxBuffered = 0;
    for (let offset = 0; offset < file.length; offset += CHUNK) {
      if (channel.bufferedAmount > HIGH_WATER) {
        await new Promise((resolve) => channel.addEventListener('bufferedamountlow', resolve, { once: true }));
      }
      channel.send(file.subarray(offset, Math.min(file.length, offset + CHUNK)));
      maxBuffered = Math.max(maxBuffered, channel.bufferedAmount);
    }
    return maxBuffered;
  }

  const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
  const sha256 = async (bytes) => hex(await crypto.subtle.digest('SHA-256', bytes));

  function transferReaches(id, status) {
    const found = state.transfers.find((t) => t.id === id && t.status === status);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => state.waiters.push({ id, status, resolve }));
  }

  async function onSignal(msg) {
    const pc = state.pc;
    if (msg.kind === 'offer') {
      await pc.setRemoteDescription(msg.data);
      await flushCandidates();
      const answer = await pc.createAnswer();
      await pc.setLocalDescription(answer);
      await signal('answer', { type: answer.type, sdp: answer.sdp });
    } else if (msg.kind === 'answer') {
      await pc.setRemoteDescription(msg.data);
      await flushCandidates();
    } else if (msg.kind === 'ice-candidate') {
      if (state.remoteSet) await pc.addIceCandidate(msg.data);
      else state.pendingCandidates.push(msg.data);
    } else if (msg.kind === 'hangup') {
      pc.close();
    }
  }

  async function flushCandidates() {
    state.remoteSet = true;
    for (const c of state.pendingCandidates.splice(0)) await state.pc.addIceCandidate(c);
  }

  function receiveFile(channel) {
    channel.binaryType = 'arraybuffer';
    let header;
    let buffer;
    let offset = 0;
    let startedAt = 0;
    channelArrived(
      new Promise((resolve, reject) => {
        channel.onmessage = async (m) => {
          try {
            if (typeof m.data === 'string') {
              header = JSON.parse(m.data);
              buffer = new Uint8Array(header.size);
              startedAt = performance.now();
              return;
            }
            buffer.set(new Uint8Array(m.data), offset);
            offset += m.data.byteLength;
            if (offset < header.size) return;
            const ms = performance.now() - startedAt;
            const digest = await sha256(buffer);
            // The receiver checks the file against the hash the sender recorded before completing.
            const record = (await api('GET', '/api/matches/' + state.matchSlug + '/transfers')).find(
              (t) => t.id === header.transferId,
            );
            const status = record && record.sha256 === digest ? 'completed' : 'failed';
            const updated = await api('PATCH', '/api/matches/' + state.matchSlug + '/transfers/' + header.transferId, {
              status,
            });
            resolve({ sha256: digest, bytes: offset, ms, transferId: header.transferId, status: updated.status });
          } catch (err) {
            reject(err);
          }
        };
      }),
    );
  }

  /** Connects to the service, fetches the ICE servers and prepares a peer connection. */
  window.connect = async ({ serviceUrl, token, matchSlug }) => {
    Object.assign(state, { token, matchSlug });
    state.socket = io(serviceUrl, {
      path: '/socket.io',
      transports: ['websocket'],
      auth: { token },
      reconnection: false,
    });
    await new Promise((resolve, reject) => {
      state.socket.once('connect', resolve);
      state.socket.once('connect_error', reject);
    });
    state.socket.on('transfer_updated', (t) => {
      state.transfers.push(t);
      for (const w of state.waiters.filter((w) => w.id === t.id && w.status === t.status)) w.resolve(t);
    });
    state.socket.on('webrtc_signal', (msg) => window.deliverSignal(msg));
    const { iceServers } = await api('GET', '/api/webrtc/ice-servers');
    state.pc = new RTCPeerConnection({ iceServers });
    state.pc.onicecandidate = (e) => {
      if (e.candidate) void signal('ice-candidate', e.candidate.toJSON());
    };
    state.pc.ondatachannel = (e) => receiveFile(e.channel);
    return { iceServers };
  };

  /** Sender: generates `size` random bytes, records the transfer, offers, sends with backpressure. */
  window.sendFile = async ({ size, fileName }) => {
    const file = randomFile(size);
    const digest = await sha256(file);
    const transfer = await api('POST', '/api/matches/' + state.matchSlug + '/transfers', {
      fileName,
      size,
      sha256: digest,
    });
    const completed = transferReaches(transfer.id, 'completed');

    const channel = state.pc.createDataChannel('video', { ordered: true });
    channel.binaryType = 'arraybuffer';
    channel.bufferedAmountLowThreshold = LOW_WATER;
    const open = new Promise((resolve) => (channel.onopen = resolve));
    const offer = await state.pc.createOffer();
    await state.pc.setLocalDescription(offer);
    await signal('offer', { type: offer.type, sdp: offer.sdp });
    await open;

    const startedAt = performance.now();
    channel.send(JSON.stringify({ transferId: transfer.id, size, fileName }));
    const maxBuffered = await pump(channel, file);
    const record = await completed;
    return {
      sha256: digest,
      transferId: transfer.id,
      status: record.status,
      ms: performance.now() - startedAt,
      maxBuffered,
    };
  };

  /** Receiver: resolves once the whole file arrived, was hashed and the record updated. */
  window.receivedFile = () => state.received;

  /** Any page: one raw signal, answered with the service's ack. */
  window.trySignal = (kind, data) => signal(kind, data);

  window.signalErrors = () => state.signalErrors;
  window.signalsSent = () => state.signalsSent || 0;

  /**
   * Benchmark reference: signals go page to page through the test driver (window.directSignal,
   * set by playwright) instead of the service. Transfer records still use the service.
   */
  window.useDirectSignaling = () => {
    state.direct = true;
  };
  window.deliverSignal = (msg) => {
    state.chain = state.chain.then(() => onSignal(msg)).catch((err) => state.signalErrors.push({ local: String(err) }));
  };
})();
