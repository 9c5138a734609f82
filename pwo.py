import asyncio

from playwright.async_api import async_playwright


async def main():
    async with async_playwright() as p:
        b = await p.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"]
        )
        pg = await b.new_page(viewport={"width": 1920, "height": 1080})
        await pg.goto("http://127.0.0.1:8786/overlay?lang=en")
        await pg.wait_for_timeout(3000)
        txt = await pg.inner_text("body")
        print([w for w in ["Degraded", "信号异常", "Live", "直播"] if w in txt])
        el = await pg.query_selector('[title*="console"], [title*="failures"]')
        print("tooltip el:", el and await el.get_attribute("title"))
        await pg.screenshot(path="overlay_degraded.png")
        await b.close()


asyncio.run(main())
