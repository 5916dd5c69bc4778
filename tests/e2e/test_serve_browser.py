"""The web page in a real browser: Debian's headless Chromium, driven by Selenium, against `anchorgate serve`.

The server runs the packaged 0.5B model on the demo corpus (the Python Language Reference) and,
for the escaping check, on a folder whose passage holds markup. The test asks the demo question,
waits for the answer, clicks a citation and reads the highlighted quote, submits an empty question
and reads the error, and checks that a `<script>` in a passage is shown as text and never runs.
Screenshots go to `test-artifacts/browser/` (ignored by git). Timeouts are generous: the answer
takes seconds on an idle machine and minutes on a loaded one; no step asserts a duration.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as visible
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.conftest import E2E_LLM, REPO_ROOT
from tests.e2e.serve_helpers import serving

pytestmark = pytest.mark.e2e
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
ANSWER_TIMEOUT_S = 1200
ARTIFACTS = REPO_ROOT / "test-artifacts" / "browser"
DEMO_QUESTION = "What does the pass statement do?"
MARKUP = '<script>window.__pwned = 1; document.title = "pwned"</script><img src="x" onerror="window.__pwned = 2">'
OWLS = f"The barn owl hunts voles and mice at night. {MARKUP} It swallows its prey whole."


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):  # a failure, not a skip: make test installs them
        pytest.fail("chromium and chromium-driver are missing: `make setup` installs them (apt-get)")
    profile = tempfile.mkdtemp(prefix="anchorgate-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1600", f"--user-data-dir={profile}"):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(120)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def ask_on_page(driver: WebDriver, base: str, question: str) -> None:
    driver.get(base + "/")
    box = driver.find_element(By.ID, "question")
    box.clear()
    box.send_keys(question)
    Select(driver.find_element(By.ID, "preset")).select_by_value("A")
    driver.find_element(By.ID, "ask-button").click()


def wait_for_outcome(driver: WebDriver) -> str:
    """The decision heading, once the answer is on the page."""
    WebDriverWait(driver, ANSWER_TIMEOUT_S).until(visible.visibility_of_element_located((By.ID, "outcome")))
    return driver.find_element(By.ID, "decision").text


def test_ask_click_a_citation_and_see_an_error(browser: WebDriver, tmp_path: Path) -> None:
    args = ["--llm", E2E_LLM, "--set", f"resources.checkpoint_db={tmp_path / 'checkpoints.sqlite'}"]
    with serving(args, tmp_path / "serve.log") as base:
        ask_on_page(browser, base, DEMO_QUESTION)
        decision = wait_for_outcome(browser)
        browser.save_screenshot(str(ARTIFACTS / "answer.png"))
        assert decision.startswith("STOP"), decision
        assert browser.find_elements(By.CSS_SELECTOR, "#progress li")  # live progress was shown
        assert "tokens spent:" in browser.find_element(By.ID, "token-text").text
        assert browser.find_elements(By.CSS_SELECTOR, "#trace tbody tr")  # the gate's trace
        citation = browser.find_elements(By.CSS_SELECTOR, "#answer button.cite")[0]
        citation.click()
        WebDriverWait(browser, 30).until(visible.visibility_of_element_located((By.ID, "quote-view")))
        quote = browser.find_element(By.CSS_SELECTOR, "#quote-passage mark").text
        passage = browser.find_element(By.ID, "quote-passage").text
        assert len(quote) > 10 and quote in passage and len(passage) > len(quote)
        assert "pydoc_data" in browser.find_element(By.ID, "quote-source").text
        WebDriverWait(browser, 120).until(visible.visibility_of_element_located((By.ID, "thread-section")))
        assert browser.find_elements(By.CSS_SELECTOR, "#checkpoints button.replay")
        browser.save_screenshot(str(ARTIFACTS / "citation.png"))

        browser.find_element(By.ID, "question").clear()
        browser.find_element(By.ID, "ask-button").click()
        WebDriverWait(browser, 60).until(visible.visibility_of_element_located((By.ID, "error")))
        error = browser.find_element(By.ID, "error").text
        assert "422" in error and "question is empty" in error
        browser.save_screenshot(str(ARTIFACTS / "empty-question.png"))


def test_markup_in_a_passage_is_shown_as_text_and_never_runs(browser: WebDriver, tmp_path: Path) -> None:
    corpus = tmp_path / "owls"
    corpus.mkdir()
    (corpus / "owls.txt").write_text(OWLS + "\n", encoding="utf-8")
    args = ["--llm", E2E_LLM, "--corpus", str(corpus), "--set", f"resources.cache_dir={tmp_path / 'cache'}"]
    with serving(args, tmp_path / "serve.log") as base:
        ask_on_page(browser, base, "What does the barn owl hunt?")
        wait_for_outcome(browser)
        citations = browser.find_elements(By.CSS_SELECTOR, "#answer button.cite")
        assert citations, browser.find_element(By.ID, "outcome").text
        citations[0].click()
        WebDriverWait(browser, 30).until(visible.visibility_of_element_located((By.ID, "quote-view")))
        browser.save_screenshot(str(ARTIFACTS / "markup-passage.png"))
        assert MARKUP in browser.find_element(By.ID, "quote-passage").text  # shown as characters
        assert browser.execute_script("return window.__pwned === undefined") is True  # and never run
        assert browser.title == "anchorgate"
        assert browser.execute_script("return document.querySelectorAll('main script, main img').length") == 0
