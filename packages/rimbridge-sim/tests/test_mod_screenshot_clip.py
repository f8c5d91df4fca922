"""The clip of a cropped screenshot as the mod's ``ScreenshotClipMathTests`` pin it: the target's
UI rectangle plus padding, scaled from the UI's logical size to the image's pixels, widened to
whole pixels, kept inside the image, and refused when empty. The sim's UI is 1280 by 720
logical pixels, so the mod's cases are set on that screen."""

from __future__ import annotations

from rimbridge_sim.tools.screenshots import _pixel_rect
from rimbridge_sim.world._screen import Rect
from rimbridge_sim.world.describe import SCREEN_HEIGHT, SCREEN_WIDTH


def test_an_image_of_the_ui_size_keeps_the_rectangle() -> None:
    clip = _pixel_rect(Rect(10, 20, 30, 40), 0, SCREEN_WIDTH, SCREEN_HEIGHT)
    assert clip == (10, 20, 30, 40)


def test_an_image_twice_the_ui_size_scales_the_rectangle() -> None:
    clip = _pixel_rect(Rect(10, 12, 25, 10), 0, 2 * SCREEN_WIDTH, 2 * SCREEN_HEIGHT)
    assert clip == (20, 24, 50, 20)


def test_padding_is_added_then_held_inside_the_image() -> None:
    assert _pixel_rect(Rect(2, 3, 5, 4), 10, SCREEN_WIDTH, SCREEN_HEIGHT) == (0, 0, 17, 17)
    corner = Rect(SCREEN_WIDTH - 5, SCREEN_HEIGHT - 5, 5, 5)
    assert _pixel_rect(corner, 10, SCREEN_WIDTH, SCREEN_HEIGHT) == (
        SCREEN_WIDTH - 15,
        SCREEN_HEIGHT - 15,
        15,
        15,
    )


def test_fractions_widen_to_whole_pixels() -> None:
    assert _pixel_rect(Rect(10.5, 20.25, 3.1, 4.2), 0, SCREEN_WIDTH, SCREEN_HEIGHT) == (
        10,
        20,
        4,
        5,
    )


def test_an_empty_rectangle_has_no_clip() -> None:
    assert _pixel_rect(Rect(10, 10, 0, 5), 0, SCREEN_WIDTH, SCREEN_HEIGHT) is None
    assert _pixel_rect(Rect(10, 10, 5, -1), 0, SCREEN_WIDTH, SCREEN_HEIGHT) is None
