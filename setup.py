# For colcon (ROS 2 workspaces), which finds Python packages by their setup.py; the project is
# described in pyproject.toml and setup.cfg, which this reads.
from setuptools import setup

setup()
