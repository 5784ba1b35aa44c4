#!/usr/bin/python3
"""Latency of the editor's page, in a real browser (headless chromium), on the sample project.

    /usr/bin/python3 bench/bench_editor_page.py [build/release/editor/kiln] [assets]

1. Event to page: for every event the page receives, from the editor sending it to the page
   showing it (the page's clock against the event's `sent_at`; both clocks are this machine's).
2. A parameter edit to new pixels: 20 slider moves of materials/brick.json's roughness, 400 ms
   apart; from the slider's input event to the new picture loaded in the page.
3. A drag: 60 slider moves 16 ms apart (one second of dragging); how many pictures the page showed
   and the delay from the last move to its pixels.
Medians, on whatever Vulkan device the editor finds (lavapipe on a machine without a GPU).
"""

import json
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'browser'))
from editor_page import Editor, chromium  # noqa: E402


def main():
    kiln = sys.argv[1] if len(sys.argv) > 1 else 'build/release/editor/kiln'
    assets = sys.argv[2] if len(sys.argv) > 2 else 'assets'
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    work = tempfile.mkdtemp(prefix='kiln-bench-page-')
    project = os.path.join(work, 'project')
    shutil.copytree(assets, project)
    editor = Editor(kiln, project, os.path.join(work, 'cache'))
    driver = None
    try:
        ready = editor.until(lambda e: e['event'] == 'ready')
        editor.until(lambda e: e['event'] == 'previews' and e.get('change') == 'ready')
        driver = chromium()
        wait = WebDriverWait(driver, 60, poll_frequency=0.02)
        driver.get(ready['url'])
        wait.until(lambda d: d.execute_script(
            "return [...document.querySelectorAll('img.picture')].filter(i => i.naturalWidth > 0).length") >= 7)
        slider = driver.find_element(By.CSS_SELECTOR, '[data-file="materials/brick.json"] input[data-param="roughness"]')
        move = "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
        driver.execute_script('window.kiln.eventToPage.length = 0')

        # Single edits.
        for i in range(20):
            count = driver.execute_script('return window.kiln.dragToPixels.length')
            driver.execute_script(move, slider, 0.2 + 0.03 * i)
            wait.until(lambda d: d.execute_script('return window.kiln.dragToPixels.length') > count)
            time.sleep(0.4)
        single = driver.execute_script('return window.kiln.dragToPixels.slice()')

        # One second of dragging.
        shown_before = driver.execute_script('return window.kiln.dragToPixels.length')
        for i in range(60):
            driver.execute_script(move, slider, 0.9 - 0.01 * i)
            time.sleep(0.016)
        last_value = round(0.9 - 0.01 * 59, 2)
        wait.until(lambda d: json.load(open(os.path.join(project, 'materials/brick.json')))['params']['roughness']
                   == last_value)
        time.sleep(1.0)
        drag = driver.execute_script('return window.kiln.dragToPixels.slice()')[shown_before:]
        to_page = driver.execute_script('return window.kiln.eventToPage.slice()')
    finally:
        if driver:
            driver.quit()
        editor.stop()
        shutil.rmtree(work, ignore_errors=True)

    print('editor page on the sample project (headless chromium):')
    print('  event to page: median %.0f ms, max %.0f ms over %d events' %
          (statistics.median(to_page), max(to_page), len(to_page)))
    print('  parameter edit to new pixels: median %.0f ms (min %.0f, max %.0f) over %d edits' %
          (statistics.median(single), min(single), max(single), len(single)))
    print('  one second of dragging (60 moves): %d pictures shown, the last %.0f ms after its move' %
          (len(drag), drag[-1] if drag else float('nan')))


if __name__ == '__main__':
    main()
