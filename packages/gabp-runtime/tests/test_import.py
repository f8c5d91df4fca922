import gabp


def test_the_package_imports() -> None:
    assert gabp.__doc__
