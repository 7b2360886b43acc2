"""What SITL runs is a launch: the command line a team types, read as ArduPilot reads it.

- ``parse.launch`` (an input, so in the parse layer): the command line (sim_vehicle.py or the
  SITL binary) → ``Launch``; ``parse.vehicleinfo``: sim_vehicle.py's frames at the pinned commit
- ``builtin``/``gazebo``: a built-in model's or a Gazebo model's checks and response
- ``physics``: which physics backend a ``--model`` string selects, and the built-in models
- ``mixer``: a pilot input through ArduPilot's mixer to each output's PWM
- ``pilot``: those PWMs through the backend to force and torque, and the verdict per axis
- ``verify``: one launch of a profile checked end to end (layers, model, pilot test)
"""
