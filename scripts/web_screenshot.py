"""Take the README's picture of ``play.py --web`` (docs/web_play.png): a match against the
random bot a few moves in, in headless Chromium (Debian's ``chromium`` and
``chromium-driver``).

    python scripts/web_screenshot.py [--out docs/web_play.png] [--seed 12] [--moves 5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from hanafuda_cli.web import ServerThread, WebConfig  # noqa: E402
from tests.helpers.web import chromium_driver  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--out", default="docs/web_play.png")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--moves", type=int, default=5)
    args = parser.parse_args()
    with ServerThread(WebConfig(bot="random")) as url:
        driver = chromium_driver(1400, 1040)
        try:
            # generous: the first game after an edit of the kernels compiles them (Numba)
            wait = WebDriverWait(driver, 600, poll_frequency=0.05)
            driver.get(url + "?delay=0")
            wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
            driver.find_element(By.ID, "seed").send_keys(str(args.seed))
            driver.find_element(By.ID, "start").click()
            for _ in range(args.moves):
                wait.until(lambda d: d.find_element(By.ID, "board").get_attribute("data-state")
                           != "busy")
                legal = driver.find_elements(By.CSS_SELECTOR, ".card.legal")
                if not legal:
                    break
                legal[0].click()
            wait.until(lambda d: d.find_element(By.ID, "board").get_attribute("data-state")
                       != "busy")
            driver.save_screenshot(args.out)
        finally:
            driver.quit()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
