#!/usr/bin/env python3
"""Opens many local HTML pages in ONE headless Chromium and screenshots each.

usage: render_pages.py CHROMIUM PROFILE_DIR SCREENSHOT_DIR NAME=PAGE.html...

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: commands on its
fd 3, answers on its fd 4, each a JSON text ended by a NUL byte), so no port is opened and no
module beyond Python's own is needed. One browser start serves every page: a start with a fresh
profile costs seconds, a page a fraction of one.

For each page, one line of JSON on stdout:
  {"name": NAME, "png_bytes": N, "console": [messages], "requests": [URLs other than the page]}
console holds every console message, log entry and uncaught exception of the page (the pages have
no script: a message can only be an error such as a blocked load or a Content-Security-Policy
violation); requests every request the page started (Network.requestWillBeSent for any URL but the
page's own). Exit status 0 when every page was rendered, 1 (with the reason on stderr) otherwise.
"""
import base64
import json
import os
import select
import subprocess
import sys
import time

WIDTH, HEIGHT = 800, 2400
TIMEOUT_S = 120  # for one page, the browser start included


class Browser:
    def __init__(self, binary, profile):
        self.log = open(os.path.join(profile, 'chromium.err'), 'w+b')
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            # dup first: the pipes' own numbers may be 3 or 4
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        # No sandbox: the tests run as root in CI. The switches keep Chromium's own services quiet.
        self.proc = subprocess.Popen(
            [binary, '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
             '--disable-background-networking', '--disable-component-update', '--disable-sync',
             '--hide-scrollbars', f'--window-size={WIDTH},{HEIGHT}', f'--user-data-dir={profile}',
             '--remote-debugging-pipe', 'about:blank'],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log,
            preexec_fn=fds, pass_fds=(), close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b''
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b'\0' not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_chrome], [], [], left)[0]:
                raise TimeoutError('no answer from Chromium')
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                self.log.seek(0)
                raise EOFError('Chromium closed its DevTools pipe: ' + self.log.read().decode(errors='replace')[-2000:])
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b'\0', 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, deadline=None):
        self.next_id += 1
        message = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session:
            message['sessionId'] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b'\0')
        deadline = deadline or time.monotonic() + TIMEOUT_S
        while True:
            answer = self._read_message(deadline)
            if answer.get('id') == self.next_id:
                if 'error' in answer:
                    raise RuntimeError(f'{method}: {answer["error"]}')
                return answer.get('result', {})
            self.events.append(answer)

    def wait_for(self, method, deadline):
        while not any(event.get('method') == method for event in self.events):
            self.events.append(self._read_message(deadline))

    def close(self):
        try:
            self.call('Browser.close', deadline=time.monotonic() + 10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def page_messages(events, url):
    console, requests = [], []
    for event in events:
        method, params = event.get('method'), event.get('params', {})
        if method == 'Runtime.consoleAPICalled':
            console.append(' '.join(str(a.get('value', a.get('description', ''))) for a in params.get('args', [])))
        elif method == 'Runtime.exceptionThrown':
            console.append(params.get('exceptionDetails', {}).get('text', 'exception'))
        elif method == 'Log.entryAdded' and params.get('entry', {}).get('level') != 'verbose':
            entry = params['entry']
            console.append(f'{entry.get("source")}: {entry.get("text")}')
        elif method == 'Network.requestWillBeSent':
            requested = params.get('request', {}).get('url', '')
            if requested != url:
                requests.append(requested)
    return console, requests


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    binary, profile, shots = sys.argv[1:4]
    pages = [arg.split('=', 1) for arg in sys.argv[4:]]
    os.makedirs(shots, exist_ok=True)
    os.makedirs(profile, exist_ok=True)
    browser = Browser(binary, profile)
    try:
        target = browser.call('Target.createTarget', {'url': 'about:blank'})['targetId']
        session = browser.call('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        for domain in ('Page', 'Runtime', 'Log', 'Network'):
            browser.call(domain + '.enable', session=session)
        browser.call('Emulation.setDeviceMetricsOverride',
                     {'width': WIDTH, 'height': HEIGHT, 'deviceScaleFactor': 1, 'mobile': False}, session=session)
        for name, path in pages:
            url = 'file://' + os.path.abspath(path)
            browser.events.clear()
            deadline = time.monotonic() + TIMEOUT_S
            browser.call('Page.navigate', {'url': url}, session=session, deadline=deadline)
            browser.wait_for('Page.loadEventFired', deadline)
            shot = browser.call('Page.captureScreenshot', {'format': 'png'}, session=session, deadline=deadline)
            png = base64.b64decode(shot['data'])
            with open(os.path.join(shots, name + '.png'), 'wb') as f:
                f.write(png)
            console, requests = page_messages(browser.events, url)
            print(json.dumps({'name': name, 'png_bytes': len(png), 'console': console, 'requests': requests}),
                  flush=True)
    except (TimeoutError, EOFError, RuntimeError, KeyError) as e:
        print(f'render_pages.py: {e}', file=sys.stderr)
        return 1
    finally:
        browser.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
