"""The benchmark sections, registered by name in the order a whole run takes them (scripts/bench.py --list)."""
import dataclasses

SECTIONS = {}


@dataclasses.dataclass(frozen=True)
class Section:
    name: str
    run: object
    summary: str
    default: bool = True
    sizes: str = ""
    brings: tuple = ()


def section(name, summary, default=True, sizes="", brings=()):
    """Registers a function of a Bench as the section NAME. `default`: part of a whole run (else only by name);
    `sizes`: the BENCH_* variables it reads, with their defaults (for --list); `brings`: sections that run before it
    whenever it runs, for the docs pair their results (a figure made of both would otherwise mix two runs)."""
    def register(function):
        SECTIONS[name] = Section(name, function, summary, default, sizes, tuple(brings))
        return function
    return register


# A whole run's order: the README's tour first (it runs the demo), the heavy cluster and chaos nights last.
ORDER = ("tour kernel memory converters engines resample stretch-speed stretch quality aac content soundindex sync "
         "music soundnight movieprobe scan fleet journal dispatch repair traces slurm chaos chaos-net compare").split()


def with_partners(names, sections):
    """NAMES in order, each preceded by the sections it brings that are not named already."""
    chosen = []
    for name in names:
        for partner in sections[name].brings:
            if partner not in names and partner not in chosen:
                chosen.append(partner)
        if name not in chosen:
            chosen.append(name)
    return chosen


def load():
    """Every section module, imported for its registrations; the sections in the order of a whole run."""
    from . import speed, stretch, sound, fleet, distributed  # noqa: F401
    ordered = {name: SECTIONS[name] for name in ORDER if name in SECTIONS}
    return {**ordered, **{name: entry for name, entry in SECTIONS.items() if name not in ordered}}
