#!/usr/bin/env python3
"""The editor's page, tested through the real `kiln editor --serve` and a real browser.

    editor_page.py security KILN PROJECT_COPY CACHE_DIR
    editor_page.py browser  KILN PROJECT_COPY CACHE_DIR SCREENSHOT_DIR

`security`: requests without the token, with a foreign Host or Origin, writes outside materials/,
and writes to a read-only page are refused (plain HTTP, no browser). `browser`: headless chromium
through chromedriver loads the page; every material shows its picture; a broken shader shows its
error as file:line with the source line; fixed, the pictures return; a slider drag rewrites the
material's JSON and its picture's pixels change. Screenshots go to SCREENSHOT_DIR. Exits 0 when
every check holds; prints what failed otherwise, and the figures the page measured.
"""

import hashlib
import http.client
import json
import os
import select
import shutil
import subprocess
import sys
import time
import urllib.parse


class Editor:
    """A running `kiln editor --json --serve 0` and its events."""

    def __init__(self, kiln, project, cache, extra=()):
        env = dict(os.environ)
        icd = next((os.path.join('/usr/share/vulkan/icd.d', f) for f in sorted(os.listdir('/usr/share/vulkan/icd.d'))
                    if f.startswith('lvp_icd.')), '')
        env.update({'VK_ICD_FILENAMES': icd, 'VK_DRIVER_FILES': icd, 'KILN_RENDER_DEVICE': 'llvmpipe'})
        self.process = subprocess.Popen([kiln, 'editor', project, '--json', '--serve', '0', '--cache-root', cache,
                                         *extra], stdout=subprocess.PIPE, stderr=sys.stderr, env=env)
        self.buffer = b''
        self.events = []

    def next(self, timeout=60.0):
        deadline = time.monotonic() + timeout
        while b'\n' not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                raise AssertionError('the editor printed no event in %.0f s' % timeout)
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                raise AssertionError('the editor ended')
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b'\n', 1)
        event = json.loads(line)
        self.events.append(event)
        return event

    def until(self, predicate, timeout=60.0):
        deadline = time.monotonic() + timeout
        while True:
            event = self.next(max(0.1, deadline - time.monotonic()))
            if predicate(event):
                return event

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def chromium():
    """Debian's chromium, headless, through its chromedriver (as root in CI: no sandbox)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = '/usr/bin/chromium'
    for flag in ('--headless=new', '--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu',
                 '--window-size=1400,1200'):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=options)


failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print('FAILED: ' + what, flush=True)


def request(port, method, path, headers=None, body=None):
    connection = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data, response


def security(kiln, project, cache):
    editor = Editor(kiln, project, cache)
    try:
        ready = editor.until(lambda e: e['event'] == 'ready')
        url = urllib.parse.urlparse(ready['url'])
        port, token = url.port, urllib.parse.parse_qs(url.query)['token'][0]
        host = {'Host': '127.0.0.1:%d' % port}
        cookie = dict(host, Cookie='kiln_token=' + token)
        origin = dict(cookie, Origin='http://127.0.0.1:%d' % port)
        status, _, _ = request(port, 'GET', '/state', host)
        check(status == 401, 'no token: 401 (got %d)' % status)
        status, _, _ = request(port, 'GET', '/state', dict(host, Cookie='kiln_token=' + '0' * len(token)))
        check(status == 403, 'a wrong token: 403 (got %d)' % status)
        status, _, response = request(port, 'GET', '/?token=' + token, host)
        check(status == 303 and 'kiln_token=' + token in (response.getheader('Set-Cookie') or ''),
              'the token in the address becomes a cookie (got %d)' % status)
        status, body, _ = request(port, 'GET', '/state', cookie)
        check(status == 200 and json.loads(body)['state']['materials'], 'the cookie opens the state (got %d)' % status)
        # DNS rebinding: a name that resolves here, but is not this server's.
        status, _, _ = request(port, 'GET', '/state', dict(cookie, Host='attacker.example:%d' % port))
        check(status == 403, 'a foreign Host: 403 (got %d)' % status)
        edit = json.dumps({'file': 'materials/brick.json', 'param': 'roughness', 'value': 0.25})
        json_type = {'Content-Type': 'application/json'}
        status, _, _ = request(port, 'POST', '/material', dict(cookie, **json_type, Origin='http://attacker.example'),
                               edit)
        check(status == 403, 'a write from another origin: 403 (got %d)' % status)
        status, _, _ = request(port, 'POST', '/material', dict(cookie, **json_type), edit)
        check(status == 403, 'a write without an Origin: 403 (got %d)' % status)
        for outside in ('../kiln.json', 'scripts/gameplay_update.lua', '/etc/passwd', 'materials/../kiln.json'):
            status, body, _ = request(port, 'POST', '/material', dict(origin, **json_type),
                                      json.dumps({'file': outside, 'param': 'roughness', 'value': 0.5}))
            check(status == 400 and b'only material files' in body, 'a write of %s refused (got %d %s)' %
                  (outside, status, body[:80]))
        status, body, _ = request(port, 'POST', '/material', dict(origin, **json_type),
                                  json.dumps({'file': 'materials/brick.json', 'param': 'roughness', 'value': [1, 2]}))
        check(status == 400 and b'keeps its shape' in body, 'a parameter keeps its shape (got %d)' % status)
        before = open(os.path.join(project, 'materials/brick.json')).read()
        status, _, _ = request(port, 'POST', '/material', dict(origin, **json_type), edit)
        check(status == 200, 'a write from the page: 200 (got %d)' % status)
        after = json.load(open(os.path.join(project, 'materials/brick.json')))
        check(after['params']['roughness'] == 0.25 and list(after) == list(json.loads(before)),
              'the material file has the new value, its keys in their order')
        event = editor.until(lambda e: e['event'] in ('material', 'material_error') and
                             e.get('file') == 'materials/brick.json')
        check(event['event'] == 'material', "the editor's watcher rebuilt the material it wrote")
        status, _, _ = request(port, 'GET', '/pictures/../kiln.json', cookie)
        check(status in (400, 404), 'pictures only from the previews (got %d)' % status)
    finally:
        editor.stop()
    # The setting: a bad address is refused before anything starts.
    run = subprocess.run([kiln, 'editor', project, '--editor-serve', '127.0.0.1:99999', '--cache-root', cache],
                         capture_output=True, text=True, timeout=60)
    check(run.returncode == 2 and 'expected [ADDR:]PORT' in run.stderr,
          'editor.serve refuses a bad address (exit %d: %s)' % (run.returncode, run.stderr.strip()))
    # Read-only: the page may look, not write.
    editor = Editor(kiln, project, cache, ['--serve-read-only'])
    try:
        ready = editor.until(lambda e: e['event'] == 'ready')
        url = urllib.parse.urlparse(ready['url'])
        port, token = url.port, urllib.parse.parse_qs(url.query)['token'][0]
        headers = {'Host': '127.0.0.1:%d' % port, 'Cookie': 'kiln_token=' + token,
                   'Origin': 'http://127.0.0.1:%d' % port, 'Content-Type': 'application/json'}
        status, _, _ = request(port, 'POST', '/material', headers,
                               json.dumps({'file': 'materials/brick.json', 'param': 'roughness', 'value': 0.5}))
        check(status == 403, '--serve-read-only: a write is 403 (got %d)' % status)
    finally:
        editor.stop()


def browser(kiln, project, cache, shots):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    os.makedirs(shots, exist_ok=True)
    editor = Editor(kiln, project, cache)
    driver = None
    try:
        ready = editor.until(lambda e: e['event'] == 'ready')
        editor.until(lambda e: e['event'] == 'previews' and e.get('change') == 'ready')
        drawn = {m for m in ready['previewing']}
        driver = chromium()
        wait = WebDriverWait(driver, 60, poll_frequency=0.05)
        driver.get(ready['url'])

        def pictures_shown(d):
            return d.execute_script("""
                return [...document.querySelectorAll('article.card')]
                  .filter(c => c.querySelector('img.picture').naturalWidth > 0).map(c => c.dataset.file);""")
        shown = wait.until(lambda d: (lambda s: s if len(s) >= 7 else None)(pictures_shown(d)))
        check(len(shown) == 7 and set(shown) <= drawn, 'every drawable material shows its picture: %s' % shown)
        driver.save_screenshot(os.path.join(shots, 'editor-page.png'))

        # A broken shader: its error at file:line, with the line, on the page.
        lit = os.path.join(project, 'shaders/lit.frag')
        good = open(lit).read()
        lines = good.split('\n')
        broken_at = next(i for i, line in enumerate(lines) if 'void main' in line) + 2
        lines.insert(broken_at - 1, '  float kiln_broken = ;')
        with open(lit, 'w') as f:
            f.write('\n'.join(lines))
        editor.until(lambda e: e['event'] == 'shader_error')
        where = 'shaders/lit.frag:%d' % broken_at
        error = wait.until(lambda d: d.execute_script("""
            const e = [...document.querySelectorAll('[data-shader="shaders/lit"] .error')]
              .find(x => x.querySelector('.where').textContent === arguments[0]);
            return e ? e.textContent + '|' + (e.nextElementSibling ? e.nextElementSibling.textContent : '') : null;""",
                                                          where))
        check('kiln_broken' in error, 'the error shows its source line: %s' % error)
        driver.save_screenshot(os.path.join(shots, 'editor-page-error.png'))

        # Fixed: the error goes and the pictures of the shader's materials come back.
        brick_src = driver.execute_script(
            "return document.querySelector('[data-file=\"materials/brick.json\"] img.picture').src")
        with open(lit, 'w') as f:
            f.write(good + '\n// fixed\n')
        editor.until(lambda e: e['event'] == 'previews' and e.get('file') == 'shaders/lit.frag')
        wait.until(lambda d: d.execute_script(
            "return document.querySelectorAll('[data-shader=\"shaders/lit\"] .error').length === 0"))
        wait.until(lambda d: d.execute_script("""
            const img = document.querySelector('[data-file="materials/brick.json"] img.picture');
            return img.src !== arguments[0] && img.complete && img.naturalWidth > 0;""", brick_src))

        # A slider drag: the file changes and so do the picture's pixels.
        picture = os.path.join(ready['previews_dir'], 'materials/brick.png')
        pixels_before = hashlib.sha256(open(picture, 'rb').read()).hexdigest()
        slider = driver.find_element(By.CSS_SELECTOR, '[data-file="materials/brick.json"] input[data-param="roughness"]')
        for value in (0.7, 0.5, 0.3, 0.1):
            driver.execute_script("arguments[0].value = arguments[1];"
                                  "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));", slider, value)
            time.sleep(0.05)
        wait.until(lambda d: json.load(open(os.path.join(project, 'materials/brick.json')))['params']['roughness']
                   == 0.1)
        wait.until(lambda d: d.execute_script('return window.kiln.dragToPixels.length') > 0)
        editor.until(lambda e: e['event'] == 'previews' and e.get('change') == 'material', timeout=30)
        time.sleep(0.5)  # any later picture of the same drag
        pixels_after = hashlib.sha256(open(picture, 'rb').read()).hexdigest()
        check(pixels_before != pixels_after, "the slider changed the preview's pixels")
        driver.save_screenshot(os.path.join(shots, 'editor-page-slider.png'))
        figures = driver.execute_script('return window.kiln')
        print('event to page (ms): %s' % sorted(figures['eventToPage']))
        print('drag to pixels (ms): %s' % sorted(figures['dragToPixels']))
    finally:
        if driver:
            driver.quit()
        editor.stop()


def main():
    mode, kiln, project, cache = sys.argv[1:5]
    if mode == 'security':
        security(kiln, project, cache)
    elif mode == 'browser':
        browser(kiln, project, cache, sys.argv[5])
    else:
        sys.exit('unknown mode ' + mode)
    if failures:
        print('%d checks failed' % len(failures))
        sys.exit(1)
    print('all checks held')


if __name__ == '__main__':
    main()
